// Reference SpMM: one row at a time, double accumulation. The oracle for every backend.
#include <cmath>
#include <limits>
#include <vector>

#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"

namespace spk::detail::reference {

template <class V, class I>
void spmm(const Executor&, const SpmmArgs<V, I>& args) {
    const auto& a = args.a;
    const index_t n = args.c.cols;
    std::vector<double> acc(static_cast<std::size_t>(n));
    std::vector<index_t> arg(static_cast<std::size_t>(n));
    const bool extremum = args.reduce == Reduce::max || args.reduce == Reduce::min;
    for (index_t i = 0; i < a.rows; ++i) {
        const index_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
        const double init = args.reduce == Reduce::max   ? -std::numeric_limits<double>::infinity()
                            : args.reduce == Reduce::min ? std::numeric_limits<double>::infinity()
                                                         : 0.0;
        std::fill(acc.begin(), acc.end(), init);
        std::fill(arg.begin(), arg.end(), index_t{-1});
        for (index_t p = begin; p < end; ++p) {
            const index_t j = a.col_idx[p];
            const double av = value_cast<double>(a.values[p]);
            for (index_t k = 0; k < n; ++k) {
                const double prod = av * value_cast<double>(args.b(j, k));
                if (!extremum) acc[k] += prod;
                // The first maximum wins ties; NaN products propagate.
                else if (arg[k] < 0 || std::isnan(prod) || (args.reduce == Reduce::max ? prod > acc[k] : prod < acc[k])) {
                    if (!std::isnan(acc[k])) {
                        acc[k] = prod;
                        arg[k] = j;
                    }
                }
            }
        }
        const index_t len = end - begin;
        for (index_t k = 0; k < n; ++k) {
            double r = acc[k];
            if (len == 0)
                r = 0.0;
            else if (args.reduce == Reduce::mean)
                r /= static_cast<double>(len);
            r *= args.alpha;
            if (args.beta != 0.0) r += args.beta * value_cast<double>(args.c(i, k));
            args.c(i, k) = value_cast<V>(r);
            if (args.arg.data) args.arg(i, k) = static_cast<I>(arg[k]);
        }
    }
}

#define SPK_INSTANTIATE(V, I) template void spmm(const Executor&, const SpmmArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::reference
