// Reference TTM: each output fiber is the sum of its non-zeros times columns of U, in double.
// The oracle for the other backends.
#include <vector>

#include "core/instantiate.hpp"
#include "core/tensor_kernels.hpp"

namespace spk::detail::reference {

template <class V, class I>
void ttm(const Executor&, const TtmArgs<V, I>& args) {
    const auto& x = args.x;
    const index_t rank = args.y.cols;
    std::vector<double> acc(static_cast<std::size_t>(rank));
    for (index_t f = 0; f < x.fibers; ++f) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (index_t p = x.fiber_ptr[f]; p < x.fiber_ptr[f + 1]; ++p) {
            const index_t k = x.leaf_ids[p];
            const double v = value_cast<double>(x.values[p]);
            for (index_t r = 0; r < rank; ++r) acc[static_cast<std::size_t>(r)] += v * value_cast<double>(args.u(r, k));
        }
        for (index_t r = 0; r < rank; ++r) args.y(f, r) = value_cast<V>(acc[static_cast<std::size_t>(r)]);
    }
}

#define SPK_INSTANTIATE(V, I) template void ttm(const Executor&, const TtmArgs<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::reference
