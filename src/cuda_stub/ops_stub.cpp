// CUDA kernels not (yet) built: each throws Unsupported. Without CUDA this covers every
// operation; with CUDA, an operation leaves this file when its kernels land in src/cuda/.
#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda {

namespace {
[[noreturn]] void missing(const char* op) {
    unsupported(std::string(op) + " on CUDA: " + (built_with_cuda() ? "not implemented on the CUDA backend yet" : "built without CUDA"));
}
} // namespace

template <class V, class I> void spmm(const Executor&, const SpmmArgs<V, I>&, const std::string&) { missing("spmm"); }

#define SPK_INSTANTIATE(V, I) template void spmm(const Executor&, const SpmmArgs<V, I>&, const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

} // namespace spk::detail::cuda
