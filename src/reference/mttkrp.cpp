// Reference MTTKRP: every non-zero adds its full product to its output row, in double. The
// oracle for the other backends (it does not factor the middle row out of the fiber sum).
#include <vector>

#include "core/instantiate.hpp"
#include "core/tensor_kernels.hpp"

namespace spk::detail::reference {

template <class V, class I>
void mttkrp(const Executor&, const MttkrpArgs<V, I>& args) {
    const auto& x = args.x;
    const index_t rank = args.out.cols;
    std::vector<double> acc(static_cast<std::size_t>(rank));
    for (index_t i = 0; i < args.out.rows; ++i)
        for (index_t r = 0; r < rank; ++r) args.out(i, r) = V(0);
    for (index_t s = 0; s < x.slices; ++s) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (index_t f = x.slice_ptr[s]; f < x.slice_ptr[s + 1]; ++f) {
            const index_t j = x.fiber_ids[f];
            for (index_t p = x.fiber_ptr[f]; p < x.fiber_ptr[f + 1]; ++p) {
                const index_t k = x.leaf_ids[p];
                const double v = value_cast<double>(x.values[p]);
                for (index_t r = 0; r < rank; ++r)
                    acc[static_cast<std::size_t>(r)] += v * value_cast<double>(args.mid(j, r)) * value_cast<double>(args.leaf(k, r));
            }
        }
        const index_t i = x.slice_ids[s];
        for (index_t r = 0; r < rank; ++r) args.out(i, r) = value_cast<V>(acc[static_cast<std::size_t>(r)]);
    }
}

#define SPK_INSTANTIATE(V, I) template void mttkrp(const Executor&, const MttkrpArgs<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::reference
