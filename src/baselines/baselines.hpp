#pragma once
// Vendor baselines for `spk bench`, kept out of the library: only the command-line tool links
// them (and cuSPARSE with them). Without CUDA every function throws Unsupported.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "spk/executor.hpp"
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

// Median milliseconds of fn over `reps` calls after `warmup`, each call timed with CUDA events on
// the executor's stream.
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

}  // namespace spk::baselines
