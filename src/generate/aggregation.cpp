// Uncoupled aggregation (MueLu's default aggregation on one process); see
// smoothed_aggregation.hpp for the phases.
#include <algorithm>
#include <string>
#include <utility>

#include "core/instantiate.hpp"
#include "generate/csr_builder.hpp"
#include "generate/smoothed_aggregation.hpp"
#include "spk/error.hpp"

namespace spk::detail {

namespace {

// Adjacency of the nodes: A's own pattern when a node is one row, else the amalgamated
// pattern (node w is a neighbour of v when some row of v has a column of w). May list the
// node itself; the phases skip it.
template <class I>
struct NodeGraph {
    index_t nodes = 0;
    const I* ptr = nullptr;
    const I* adj = nullptr;
    std::vector<I> own_ptr, own_adj;  // storage when amalgamated
};

template <class V, class I>
NodeGraph<I> node_graph(CsrView<const V, I> a, int block) {
    NodeGraph<I> g;
    g.nodes = a.rows / block;
    if (block == 1) {
        g.ptr = a.row_ptr;
        g.adj = a.col_idx;
        return g;
    }
    // The distinct c / block over the node's rows, sorted, into out (reused per thread).
    auto neighbours = [&](index_t v, std::vector<I>& out) {
        out.clear();
        for (index_t p = a.row_ptr[block * v]; p < a.row_ptr[block * (v + 1)]; ++p) out.push_back(static_cast<I>(a.col_idx[p] / block));
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
    };
    g.own_ptr.assign(static_cast<std::size_t>(g.nodes) + 1, 0);
#pragma omp parallel
    {
        std::vector<I> buf;
#pragma omp for schedule(static)
        for (index_t v = 0; v < g.nodes; ++v) {
            neighbours(v, buf);
            g.own_ptr[v + 1] = static_cast<I>(buf.size());
        }
    }
    inclusive_scan_parallel(g.own_ptr.data() + 1, g.nodes);
    g.own_adj.resize(static_cast<std::size_t>(g.own_ptr[g.nodes]));
#pragma omp parallel
    {
        std::vector<I> buf;
#pragma omp for schedule(static)
        for (index_t v = 0; v < g.nodes; ++v) {
            neighbours(v, buf);
            std::copy(buf.begin(), buf.end(), g.own_adj.begin() + g.own_ptr[v]);
        }
    }
    g.ptr = g.own_ptr.data();
    g.adj = g.own_adj.data();
    return g;
}

}  // namespace

template <class V, class I>
Aggregates<I> aggregate_uncoupled(CsrView<const V, I> a, int block_size) {
    if (!a.space.is_host()) invalid_argument("aggregate_uncoupled: A must be in host memory, it is in " + to_string(a.space));
    if (a.rows != a.cols)
        invalid_argument("aggregate_uncoupled: A must be square, it is " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
    if (block_size < 1 || a.rows % block_size != 0)
        invalid_argument("aggregate_uncoupled: block_size = " + std::to_string(block_size) + " must be >= 1 and divide the " +
                         std::to_string(a.rows) + " rows");
    const NodeGraph<I> g = node_graph(a, block_size);
    const index_t n = g.nodes;
    Aggregates<I> out;
    out.of_node.assign(static_cast<std::size_t>(n), I{-1});
    // Phase 1 (serial: each decision depends on the ones before it). A node rejected as a root
    // stays unaggregated, so a later root can still take it in (MueLu with ML's phase-1 rule).
    std::vector<char> aggregated(static_cast<std::size_t>(n), 0);
    for (index_t v = 0; v < n; ++v) {
        if (aggregated[v]) continue;
        bool has_neighbour = false, none_aggregated = true;
        for (index_t p = g.ptr[v]; p < g.ptr[v + 1] && none_aggregated; ++p) {
            const index_t w = g.adj[p];
            if (w == v) continue;
            has_neighbour = true;
            none_aggregated = !aggregated[w];
        }
        if (!has_neighbour || !none_aggregated) continue;  // an aggregate needs 2 nodes and no taken neighbour
        const I id = static_cast<I>(out.count++);
        aggregated[v] = 1;
        out.of_node[v] = id;
        for (index_t p = g.ptr[v]; p < g.ptr[v + 1]; ++p) {
            aggregated[g.adj[p]] = 1;
            out.of_node[g.adj[p]] = id;
        }
    }

    // Phase 2: reads only phase-1 results (`aggregated` does not change here) and writes only
    // its own node. Every node left with a neighbour has one in a phase-1 aggregate: it was
    // rejected as a root because of it.
#pragma omp parallel
    {
        std::vector<std::pair<I, index_t>> edges_to;  // (aggregate, edges) of the current node
#pragma omp for schedule(dynamic, 1024)
        for (index_t v = 0; v < n; ++v) {
            if (aggregated[v]) continue;
            edges_to.clear();
            for (index_t p = g.ptr[v]; p < g.ptr[v + 1]; ++p) {
                const index_t w = g.adj[p];
                if (w == v || !aggregated[w]) continue;
                const I agg = out.of_node[w];
                auto it = std::find_if(edges_to.begin(), edges_to.end(), [&](const auto& e) { return e.first == agg; });
                if (it == edges_to.end())
                    edges_to.emplace_back(agg, 1);
                else
                    ++it->second;
            }
            if (edges_to.empty()) continue;
            auto best = std::min_element(edges_to.begin(), edges_to.end(), [](const auto& x, const auto& y) {
                return x.second != y.second ? x.second > y.second : x.first < y.first;
            });
            out.of_node[v] = best->first;
        }
    }

    // Phase 3.
    for (index_t v = 0; v < n; ++v)
        if (out.of_node[v] < 0) out.of_node[v] = static_cast<I>(out.count++);
    return out;
}

#define SPK_INSTANTIATE(V, I) template Aggregates<I> aggregate_uncoupled<V, I>(CsrView<const V, I>, int);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
