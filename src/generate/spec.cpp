// generate(spec): a matrix from a spec string.
#include "core/instantiate.hpp"
#include "generate/spec_parser.hpp"
#include "spk/generate.hpp"

namespace spk {

template <class V, class I>
Csr<V, I> generate(std::string_view spec) {
    const detail::GeneratorSpec s(spec, "generate");
    if (const auto problem = s.amg_problem()) {
        const detail::Grid g = s.grid();
        return generate_amg_matrix<V, I>(*problem, g.nx, g.ny, g.nz);
    }
    const std::string& kind = s.kind();
    if (kind == "uniform" || kind == "powerlaw") {
        const index_t rows = s.size_or_n("rows");
        const index_t cols = s.integer("cols", rows);
        const double per_row = s.real("per_row", 16);
        if (kind == "uniform") return generate_uniform<V, I>(rows, cols, per_row, s.seed());
        return generate_powerlaw<V, I>(rows, cols, per_row, s.real("exponent", 2.1), s.seed());
    }
    if (kind == "rmat") {
        const index_t scale = s.integer("scale");
        if (scale > 62) s.fail("parameter 'scale' = " + std::to_string(scale) + " is above 62");
        return generate_rmat<V, I>(static_cast<int>(scale), s.real("edge_factor", 16), s.real("a", 0.57), s.real("b", 0.19),
                                   s.real("c", 0.19), s.real("d", 0.05), s.seed());
    }
    if (kind == "banded") return generate_banded<V, I>(s.integer("n"), s.integer("half_width"), s.seed());
    return generate_block_diagonal<V, I>(s.integer("blocks"), s.integer("block"), s.seed());  // the parser admits no other kind
}

bool is_amg_spec(std::string_view spec) { return detail::amg_problem_named(detail::spec_kind(spec)).has_value(); }

#define SPK_INSTANTIATE(V, I) template Csr<V, I> generate<V, I>(std::string_view);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
