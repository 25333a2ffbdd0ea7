#pragma once
// The pieces of a smoothed-aggregation prolongator, as MueLu builds it by default
// (MueLu's UncoupledAggregationFactory, TentativePFactory and SaPFactory):
//   1. aggregate the node graph (uncoupled aggregation),
//   2. tentative prolongator: the near-nullspace restricted to each aggregate, QR-factored,
//      P_tent = Q and the coarse near-nullspace = R,
//   3. P = (I - omega D⁻¹A) P_tent, omega = 4 / (3 lambda_max(D⁻¹A)).
#include <vector>

#include "generate/grid_problems.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

constexpr int sa_power_iterations = 10;   // MueLu's default "sa: eigenvalue estimate num iterations"
constexpr double sa_damping = 4.0 / 3.0;  // MueLu's default "sa: damping factor"

template <class I>
struct Aggregates {
    index_t count = 0;
    std::vector<I> of_node;  // aggregate of each node, in [0, count)
};

// Uncoupled aggregation on the node graph of A, where node v owns rows
// [block_size v, block_size (v + 1)) and nodes are adjacent when their block of A has an entry:
//   phase 1: in natural order, an unaggregated node none of whose neighbours is aggregated
//            becomes a root and forms an aggregate with all its neighbours (MueLu with
//            "aggregation: match ML phase1", i.e. at most 0 neighbours already selected, and
//            min aggregate size 2, so isolated nodes are skipped);
//   phase 2: each node left joins the neighbouring phase-1 aggregate it has most edges to
//            (ties: the lowest aggregate number). Decided from phase 1 alone, so it runs in
//            parallel and does not depend on the order - MueLu's phase 2b without its weights
//            and size penalties; MueLu's phase 2a (new aggregates from leftovers) is not done;
//   phase 3: nodes with no aggregated neighbour (isolated nodes) form their own aggregate.
// Aggregates are numbered in the order they are formed.
template <class V, class I>
Aggregates<I> aggregate_uncoupled(CsrView<const V, I> a, int block_size);

// The near-nullspace of a grid problem, row-major (rows of A) x nullspace_dim(problem):
// constants for the scalar problems; for elasticity the 3 translations and the 3 rotations
// (about z: (-y, x, 0), about x: (0, -z, y), about y: (z, 0, -x)) with node coordinates
// centred on the grid.
std::vector<double> near_nullspace(AmgProblem problem, const Grid& grid);

template <class V, class I>
struct TentativeProlongator {
    Csr<V, I> p;                           // rows of A x (aggregates * k); row i holds aggregate(i)'s k columns
    std::vector<double> coarse_nullspace;  // row-major (aggregates * k) x k: R of each aggregate's QR
};
// nullspace: row-major, (aggregates.of_node.size() * block_size) x k.
template <class V, class I>
TentativeProlongator<V, I> tentative_prolongator(const Aggregates<I>& aggregates, int block_size, const std::vector<double>& nullspace,
                                                 int k);

// lambda_max(D⁻¹A) by the power method from a fixed pseudo-random start vector (as MueLu's
// Utilities::PowerMethod: Rayleigh quotient of the normalised iterate). Sums are formed in
// fixed blocks, so the estimate does not depend on the thread count.
template <class V, class I>
double estimate_lambda_max(CsrView<const V, I> a, int iterations);

// (I - omega D⁻¹A) P_tent, by spk::spgemm on the cpu executor. Every row of A needs its
// diagonal entry (InvalidArgument naming the row otherwise); a zero diagonal leaves its row
// of P equal to P_tent's.
template <class V, class I>
Csr<V, I> smooth_prolongator(CsrView<const V, I> a, CsrView<const V, I> p_tent, double omega);

}  // namespace spk::detail
