#pragma once
// Vendor baselines for `spk bench`, kept out of the library: only the command-line tool links
// them (and cuSPARSE with them). Without CUDA every function throws Unsupported.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spk/executor.hpp"
#include "spk/fusedmm.hpp"
#include "spk/matrix.hpp"

namespace spk::baselines {

struct Timing {
    std::string name;          // e.g. "cusparse.alg3"
    bool ok = false;           // false: the library refused the case (note says why)
    double ms = 0.0;           // median per call
    double preprocess_ms = 0;  // one-time work the algorithm needs first (timed apart)
    std::string note;
    std::size_t peak_bytes = 0;  // device memory the library's buffers (and output) took at most (0: not measured)
};

// Milliseconds per call of each of `reps` runs of fn after `warmup`, timed with CUDA events on the executor's stream
// (at least one run). After a warm-up, calls under 0.1 ms run in batches of back-to-back calls (a run = one batch, its
// time divided by its size), so that a few-microsecond kernel is not measured as its launch's latency.
std::vector<double> time_device_runs_ms(const Executor& exec, const std::function<void()>& fn, int warmup, int reps);

// From here on, time those batches by replaying them from a CUDA graph (the device's time, without
// the host's launch path), or as calls queued from the host (the default): spk bench --timing.
void set_graph_replay(bool on);

// A stream of its own on the device (non-blocking), for an executor whose calls graph replay
// captures: the legacy default stream cannot be captured. Destroyed with the returned handle.
std::shared_ptr<void> make_stream(int device);

// Their median.
double time_device_ms(const Executor& exec, const std::function<void()>& fn, int warmup, int reps);

// Device-to-device copy bandwidth in bytes per second, counting bytes read plus bytes written
// (median of several 1 GiB copies): the memory-bound floor of a kernel is its minimum bytes over it.
double copy_bandwidth(const Executor& exec);

// cuSPARSE CSR SpMM, C = A·B (sum), with every algorithm that accepts the case; C is overwritten.
template <class V, class I>
std::vector<Timing> cusparse_spmm(const Executor& exec, CsrView<const V, I> a, DenseView<const V> b, DenseView<V> c, int warmup, int reps);

// cuSPARSE SpGEMM, C = A·B, with ALG1, ALG2 and ALG3 (each that accepts the case; a refusal such
// as CUSPARSE_STATUS_INSUFFICIENT_RESOURCES lands in note): "cusparse.spgemm.algN" times the full
// product (work estimation, memory estimation, compute, copy, buffers included);
// "cusparse.spgemm.reuse" times cusparseSpGEMMreuse_compute alone, the pattern known.
template <class V, class I>
std::vector<Timing> cusparse_spgemm(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, int warmup, int reps);

// cuSPARSE SDDMM (CUSPARSE_SDDMM_ALG_DEFAULT, f32): out_values (nnz, device) = <X_i, Y_j> for each
// entry (i, j) of A (A's values are not read). One Timing "cusparse.sddmm.default", buffer and
// preprocessing timed apart in preprocess_ms; a refusal lands in note.
template <class I>
std::vector<Timing> cusparse_sddmm(const Executor& exec, CsrView<const float, I> a, DenseView<const float> x, DenseView<const float> y,
                                   float* out_values, int warmup, int reps);

// The unfused FusedMM pipeline a user writes today with cuSPARSE (f32), the baseline of spk's
// fused kernel. Per head h: the scores on A's pattern in an nnz-sized buffer (cusparseSDDMM of
// X_h and Y_h for dot and neg_sqdist, the latter completed with squared row norms; A's values for
// value; X(i,h) + Y(j,h) for add), one elementwise kernel (a warp per row: the edge function, the
// row softmax, mean's 1/length), then cusparseSpMM of those weights with Z_h into E_h. Weights
// from A's values alone do not depend on the head: one pass and one SpMM over all heads' columns.
// One Timing "cusparse.unfused.<spmm alg>" per SpMM algorithm; each times the whole pipeline
// (descriptors, buffers and preprocessing set up before, preprocessing timed in preprocess_ms)
// and reports in peak_bytes the pipeline's own device buffers (intermediates and cuSPARSE
// workspaces; not the inputs, E or cuSPARSE's handle). Max aggregation (SpMM only sums) and a
// refused case give one Timing with ok = false and the reason in note; wrong shapes throw. after_run(t) is called
// after each algorithm's runs while e holds its result, so that the caller can check it.
template <class I>
std::vector<Timing> cusparse_fusedmm(const Executor& exec, CsrView<const float, I> a, DenseView<const float> x, DenseView<const float> y,
                                     DenseView<const float> z, DenseView<float> e, const FusedOptions& options, int warmup, int reps,
                                     const std::function<void(Timing&)>& after_run);

// Runs fn on the executor's stream and returns the most bytes of the device's default memory pool
// (where spk takes its stream-ordered workspaces) in use at once during it, above what was in use
// before. Buffers spk allocates with cudaMalloc (Arrays, Dense) are not in the pool.
std::size_t pool_peak_bytes(const Executor& exec, const std::function<void()>& fn);

}  // namespace spk::baselines
