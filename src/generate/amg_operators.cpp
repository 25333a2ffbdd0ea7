// generate_amg / amg_from_spec: A, the smoothed-aggregation prolongator P and R = Pᵀ.
// Kept apart from the matrix generators because it links spk::spgemm.
#include <type_traits>

#include "core/instantiate.hpp"
#include "generate/smoothed_aggregation.hpp"
#include "generate/spec_parser.hpp"
#include "spk/generate.hpp"

namespace spk {

template <class V, class I>
AmgOperators<V, I> generate_amg(AmgProblem problem, index_t nx, index_t ny, index_t nz) {
    if constexpr (std::is_same_v<V, f16> || std::is_same_v<V, bf16>) {
        // 16-bit values are storage only: build in f64, round once at the end.
        AmgOperators<double, I> d = generate_amg<double, I>(problem, nx, ny, nz);
        return {convert_values<V, double, I>(d.a.view()),
                convert_values<V, double, I>(d.p.view()),
                convert_values<V, double, I>(d.r.view()),
                d.aggregates,
                d.lambda_max,
                d.omega};
    } else {
        const detail::Grid grid = detail::checked_grid(problem, nx, ny, nz);
        AmgOperators<V, I> out;
        out.a = generate_amg_matrix<V, I>(problem, nx, ny, nz);
        const int block = detail::dofs_per_node(problem);
        const int k = detail::nullspace_dim(problem);
        const detail::Aggregates<I> aggregates = detail::aggregate_uncoupled(out.a.view(), block);
        const detail::TentativeProlongator<V, I> tentative =
            detail::tentative_prolongator<V, I>(aggregates, block, detail::near_nullspace(problem, grid), k);
        out.aggregates = aggregates.count;
        out.lambda_max = detail::estimate_lambda_max(out.a.view(), detail::sa_power_iterations);
        // A zero operator (a single node) has no smoothing to do.
        out.omega = out.lambda_max > 0 ? detail::sa_damping / out.lambda_max : 0.0;
        out.p = detail::smooth_prolongator(out.a.view(), tentative.p.view(), out.omega);
        out.r = transpose(out.p.view());
        return out;
    }
}

template <class V, class I>
AmgOperators<V, I> amg_from_spec(std::string_view spec) {
    const detail::GeneratorSpec s(spec, "amg_from_spec");
    const auto problem = s.amg_problem();
    if (!problem) s.fail("kind '" + s.kind() + "' is not an AMG problem (laplace3d, bigstar2d, brick3d, elasticity3d)");
    const detail::Grid g = s.grid();
    return generate_amg<V, I>(*problem, g.nx, g.ny, g.nz);
}

#define SPK_INSTANTIATE(V, I)                                                              \
    template AmgOperators<V, I> generate_amg<V, I>(AmgProblem, index_t, index_t, index_t); \
    template AmgOperators<V, I> amg_from_spec<V, I>(std::string_view);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
