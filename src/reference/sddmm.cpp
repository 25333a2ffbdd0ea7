// Reference SDDMM and its backward pass: serial loops straight from the definitions in
// spk/sddmm.hpp, double accumulation. The oracle for every backend.
#include <vector>

#include "core/instantiate.hpp"
#include "core/sddmm_kernels.hpp"

namespace spk::detail::reference {

namespace {

// <X(i, head block h), Y(j, head block h)> in double.
template <class V>
double head_dot(DenseView<const V> x, DenseView<const V> y, index_t i, index_t j, index_t h, index_t d) {
    double s = 0;
    for (index_t k = h * d; k < (h + 1) * d; ++k) s += value_cast<double>(x(i, k)) * value_cast<double>(y(j, k));
    return s;
}

}  // namespace

template <class V, class I>
void sddmm(const Executor&, const SddmmArgs<V, I>& args) {
    const auto& a = args.a;
    const index_t d = args.x.cols / args.heads;
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const double scale = args.scale_by_a ? value_cast<double>(a.values[p]) : 1.0;
            for (index_t h = 0; h < args.heads; ++h)
                args.out(p, h) = value_cast<V>(scale * head_dot(args.x, args.y, i, a.col_idx[p], h, d));
        }
}

template <class V, class I>
void sddmm_backward(const Executor&, const SddmmBackwardArgs<V, I>& args) {
    const auto& a = args.a;
    const index_t d = args.x.cols / args.heads, width = args.x.cols;
    std::vector<double> dx(static_cast<std::size_t>(args.x.rows * width), 0.0), dy(static_cast<std::size_t>(args.y.rows * width), 0.0);
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const index_t j = a.col_idx[p];
            const double scale = args.scale_by_a && a.values ? value_cast<double>(a.values[p]) : 1.0;
            double da = 0;
            for (index_t h = 0; h < args.heads; ++h) {
                const double g = value_cast<double>(args.d_out(p, h));
                if (args.da.data) da += g * head_dot(args.x, args.y, i, j, h, d);
                for (index_t k = h * d; k < (h + 1) * d; ++k) {
                    dx[i * width + k] += g * scale * value_cast<double>(args.y(j, k));
                    dy[j * width + k] += g * scale * value_cast<double>(args.x(i, k));
                }
            }
            if (args.da.data) args.da(p, 0) = value_cast<V>(da);
        }
    if (args.dx.data)
        for (index_t i = 0; i < args.x.rows; ++i)
            for (index_t k = 0; k < width; ++k) args.dx(i, k) = value_cast<V>(dx[i * width + k]);
    if (args.dy.data)
        for (index_t j = 0; j < args.y.rows; ++j)
            for (index_t k = 0; k < width; ++k) args.dy(j, k) = value_cast<V>(dy[j * width + k]);
}

#define SPK_INSTANTIATE(V, I)                                     \
    template void sddmm(const Executor&, const SddmmArgs<V, I>&); \
    template void sddmm_backward(const Executor&, const SddmmBackwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::reference
