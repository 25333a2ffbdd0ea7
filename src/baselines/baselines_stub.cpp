// Without CUDA there is no vendor baseline to run.
#include "baselines/baselines.hpp"
#include "core/instantiate.hpp"
#include "spk/error.hpp"

namespace spk::baselines {

std::vector<double> time_device_runs_ms(const Executor&, const std::function<void()>&, int, int) {
    unsupported("device timing: spk was built without CUDA");
}

void set_graph_replay(bool) {}

std::shared_ptr<void> make_stream(int) { unsupported("CUDA streams: spk was built without CUDA"); }

double time_device_ms(const Executor&, const std::function<void()>&, int, int) { unsupported("device timing: spk was built without CUDA"); }

double copy_bandwidth(const Executor&) { unsupported("copy bandwidth: spk was built without CUDA"); }

template <class V, class I>
std::vector<Timing> cusparse_spmm(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<V>, int, int) {
    unsupported("cuSPARSE baseline: spk was built without CUDA");
}

#define SPK_INSTANTIATE(V, I) \
    template std::vector<Timing> cusparse_spmm(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<V>, int, int);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

template <class V, class I>
std::vector<Timing> cusparse_spgemm(const Executor&, CsrView<const V, I>, CsrView<const V, I>, int, int) {
    unsupported("cuSPARSE SpGEMM baseline: spk was built without CUDA");
}
#define SPK_INSTANTIATE(V, I) template std::vector<Timing> cusparse_spgemm(const Executor&, CsrView<const V, I>, CsrView<const V, I>, int, int);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

template <class I>
std::vector<Timing> cusparse_sddmm(const Executor&, CsrView<const float, I>, DenseView<const float>, DenseView<const float>, float*, int,
                                   int) {
    unsupported("cuSPARSE SDDMM baseline: spk was built without CUDA");
}
template std::vector<Timing> cusparse_sddmm(const Executor&, CsrView<const float, std::int32_t>, DenseView<const float>,
                                            DenseView<const float>, float*, int, int);
template std::vector<Timing> cusparse_sddmm(const Executor&, CsrView<const float, std::int64_t>, DenseView<const float>,
                                            DenseView<const float>, float*, int, int);

template <class I>
std::vector<Timing> cusparse_fusedmm(const Executor&, CsrView<const float, I>, DenseView<const float>, DenseView<const float>,
                                     DenseView<const float>, DenseView<float>, const FusedOptions&, int, int,
                                     const std::function<void(Timing&)>&) {
    unsupported("cuSPARSE FusedMM baseline: spk was built without CUDA");
}
#define SPK_INSTANTIATE(I)                                                                                                               \
    template std::vector<Timing> cusparse_fusedmm(const Executor&, CsrView<const float, I>, DenseView<const float>,                      \
                                                  DenseView<const float>, DenseView<const float>, DenseView<float>, const FusedOptions&, \
                                                  int, int, const std::function<void(Timing&)>&);
SPK_INSTANTIATE(std::int32_t)
SPK_INSTANTIATE(std::int64_t)
#undef SPK_INSTANTIATE

std::size_t pool_peak_bytes(const Executor&, const std::function<void()>&) {
    unsupported("device memory pool: spk was built without CUDA");
}

}  // namespace spk::baselines
