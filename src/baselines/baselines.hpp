#pragma once
// Vendor baselines for `spk bench`, kept out of the library: only the command-line tool links
// them (and cuSPARSE with them). Without CUDA every function throws Unsupported.
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

}  // namespace spk::baselines
