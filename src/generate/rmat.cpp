// R-MAT (Chakrabarti, Zhan, Faloutsos 2004): each edge descends `scale` levels of the adjacency
// matrix, picking a quadrant with probabilities a, b, c, d. Edge e draws from its own stream,
// so the edges are generated twice (count, then place) instead of being stored as COO; rows
// are then sorted and duplicates merged. The result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/instantiate.hpp"
#include "generate/counter_rng.hpp"
#include "generate/csr_builder.hpp"
#include "spk/error.hpp"
#include "spk/generate.hpp"

namespace spk {

namespace {

// Cumulative quadrant probabilities as 32-bit fixed-point thresholds: one 64-bit draw decides
// two levels, which halves the cost of the (twice-run) edge generation.
struct Quadrants {
    std::uint64_t a, ab, abc;
    Quadrants(double pa, double pb, double pc) : a(threshold(pa)), ab(threshold(pa + pb)), abc(threshold(pa + pb + pc)) {}
    static std::uint64_t threshold(double p) { return static_cast<std::uint64_t>(std::min(1.0, p) * 0x1p32); }
};

struct Edge {
    index_t row, col;
};

Edge rmat_edge(std::uint64_t seed, index_t e, int scale, const Quadrants& q) {
    detail::CounterRng rng(seed, detail::RngDomain::rmat, static_cast<std::uint64_t>(e));
    Edge out{0, 0};
    std::uint64_t bits = 0;
    for (int level = 0; level < scale; ++level) {
        if (level % 2 == 0) bits = rng.next();
        const std::uint64_t u = level % 2 == 0 ? bits >> 32 : bits & 0xffffffffULL;  // uniform in [0, 2^32)
        out.row = 2 * out.row + (u >= q.ab ? 1 : 0);                                 // c or d: lower half
        out.col = 2 * out.col + ((u >= q.a && u < q.ab) || u >= q.abc ? 1 : 0);      // b or d: right half
    }
    return out;
}

void check_probability(const char* name, double p) {
    if (!std::isfinite(p) || p < 0 || p > 1)
        invalid_argument(std::string("generate_rmat: ") + name + " must be a probability in [0, 1], got " + std::to_string(p));
}

}  // namespace

template <class V, class I>
Csr<V, I> generate_rmat(int scale, double edge_factor, double a, double b, double c, double d, std::uint64_t seed) {
    constexpr int max_scale = std::numeric_limits<I>::digits - 1;  // keeps 2^scale + 1 row offsets in I
    if (scale < 0 || scale > max_scale)
        invalid_argument("generate_rmat: scale must be in [0, " + std::to_string(max_scale) + "] for " +
                         std::string(index_traits<I>::name) + " indices, got " + std::to_string(scale));
    if (!std::isfinite(edge_factor) || edge_factor < 0)
        invalid_argument("generate_rmat: edge_factor must be a finite number >= 0, got " + std::to_string(edge_factor));
    check_probability("a", a);
    check_probability("b", b);
    check_probability("c", c);
    check_probability("d", d);
    if (std::abs(a + b + c + d - 1.0) > 1e-6)
        invalid_argument("generate_rmat: the probabilities a + b + c + d must sum to 1, got " + std::to_string(a) + " + " +
                         std::to_string(b) + " + " + std::to_string(c) + " + " + std::to_string(d) + " = " + std::to_string(a + b + c + d));
    const index_t n = index_t{1} << scale;
    const double edges_wanted = std::round(edge_factor * static_cast<double>(n));
    if (edges_wanted > static_cast<double>(std::numeric_limits<I>::max()))
        invalid_argument("generate_rmat: edge_factor * 2^scale = " + std::to_string(edges_wanted) + " edges do not fit " +
                         std::string(index_traits<I>::name) + " indices" + (sizeof(I) < 8 ? " (use int64)" : ""));
    const auto edges = static_cast<index_t>(edges_wanted);
    const Quadrants q(a, b, c);

    // Count the edges of each row, then place each edge's column at its row's cursor. The order
    // within a row depends on timing, but the sort below makes it canonical.
    std::vector<index_t> start(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < edges; ++e) {
        const Edge x = rmat_edge(seed, e, scale, q);
#pragma omp atomic
        ++start[x.row + 1];
    }
    detail::inclusive_scan_parallel(start.data() + 1, n);
    std::vector<index_t> cursor(start.begin(), start.end() - 1);
    std::vector<I> cols(static_cast<std::size_t>(edges));
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < edges; ++e) {
        const Edge x = rmat_edge(seed, e, scale, q);
        index_t slot;
#pragma omp atomic capture
        slot = cursor[x.row]++;
        cols[slot] = static_cast<I>(x.col);
    }
    std::vector<index_t> unique_length(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(dynamic, 256)
    for (index_t i = 0; i < n; ++i) {
        I* begin = cols.data() + start[i];
        I* end = cols.data() + start[i + 1];
        std::sort(begin, end);
        unique_length[i] = std::unique(begin, end) - begin;
    }
    return detail::build_csr_by_rows<V, I, /*uneven_rows=*/true>(
        "generate_rmat", n, n, [&](index_t i) { return unique_length[i]; },
        [&](index_t i, I* c, V* v) {
            const I* row = cols.data() + start[i];
            for (index_t k = 0; k < unique_length[i]; ++k) {
                c[k] = row[k];
                v[k] = value_cast<V>(detail::entry_value(seed, i, row[k]));
            }
        });
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> generate_rmat<V, I>(int, double, double, double, double, double, std::uint64_t);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
