#pragma once
// Shared by the FusedMM tests: every option combination, random problems shaped for a score,
// and one-call forward / backward runs that return host doubles.
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace spk::test::fused {

// The backends compared with the reference here: the host ones (these tests keep their inputs in
// host memory; tests/cuda/fusedmm_test.cpp runs the CUDA kernels against the reference).
inline std::vector<Executor> host_backends() { return test::host_backends(); }

// The options of one FusedMM pattern (score, edge, normalisation, aggregation, heads).
inline FusedOptions pattern(Score score, Edge edge, Normalize normalize, Aggregate aggregate, int heads, bool save_attention = false) {
    FusedOptions o;
    o.score = score;
    o.edge = edge;
    o.normalize = normalize;
    o.aggregate = aggregate;
    o.heads = heads;
    o.save_attention = save_attention;
    return o;
}

inline std::vector<Edge> all_edges() {
    return {Edge::identity(), Edge::sigmoid(), Edge::exp(), Edge::leaky_relu(0.2f), Edge::tanh(), Edge::scale(0.5f)};
}

// Every score x edge x normalize x aggregate (144 combinations), heads left at 1.
inline std::vector<FusedOptions> all_combinations() {
    std::vector<FusedOptions> out;
    for (Score s : {Score::dot, Score::add, Score::neg_sqdist, Score::value})
        for (Edge e : all_edges())
            for (Normalize n : {Normalize::none, Normalize::softmax})
                for (Aggregate g : {Aggregate::sum, Aggregate::mean, Aggregate::max}) {
                    FusedOptions o;
                    o.score = s;
                    o.edge = e;
                    o.normalize = n;
                    o.aggregate = g;
                    out.push_back(o);
                }
    return out;
}

inline std::string describe(const FusedOptions& o) {
    return std::string(to_string(o.score)) + "/" + to_string(o.edge) + "/" + std::string(to_string(o.normalize)) + "/" +
           std::string(to_string(o.aggregate)) + "/heads=" + std::to_string(o.heads) + (o.save_attention ? "/saved" : "");
}

template <class V, class I>
struct Problem {
    Csr<V, I> a;
    Dense<V> x, y, z;
    FusedOptions options;
    index_t dz = 0;  // output width per head
};

// X and Y shaped for the score: rows x heads*d (dot, neg_sqdist), rows x heads (add), 0 x 0 (value).
template <class V, class I>
Problem<V, I> random_problem(index_t rows, index_t cols, double per_row, index_t d, index_t dz, const FusedOptions& o, std::uint64_t s) {
    Problem<V, I> p;
    p.a = random_csr<V, I>(rows, cols, per_row, s);
    const index_t xw = o.score == Score::add ? o.heads : o.score == Score::value ? 0 : o.heads * d;
    p.x = random_dense<V>(o.score == Score::value ? 0 : rows, xw, s + 1);
    p.y = random_dense<V>(o.score == Score::value ? 0 : cols, xw, s + 2);
    p.z = random_dense<V>(cols, o.heads * dz, s + 3);
    p.options = o;
    p.dz = dz;
    return p;
}

template <class V, class I>
struct Forward {
    Dense<V> e;
    FusedSaved<V, I> saved;
};

template <class V, class I>
Forward<V, I> forward(const Executor& exec, const Problem<V, I>& p) {
    Forward<V, I> f;
    f.e = Dense<V>(Executor::cpu(), p.a.rows(), p.z.cols());
    f.saved = FusedPlan<V, I>(exec, p.a.view(), p.options).forward(p.x.view(), p.y.view(), p.z.view(), f.e.view());
    return f;
}

struct Grads {
    std::vector<double> dx, dy, dz, da;
};

// Aᵀ's pattern as a caller of FusedPlan::use_transposed_pattern keeps it, built the plain way
// (entries taken column by column, rows in order).
template <class I>
struct KeptTransposed {
    std::vector<I> col_ptr, row_idx, entry;
};

template <class V, class I>
KeptTransposed<I> kept_transposed(const Csr<V, I>& a) {
    const std::vector<I> ptr = a.row_ptr().to_vector(), col = a.col_idx().to_vector();
    KeptTransposed<I> t{std::vector<I>(static_cast<std::size_t>(a.cols() + 1), 0), {}, {}};
    for (I c : col) ++t.col_ptr[static_cast<std::size_t>(c) + 1];
    for (std::size_t c = 0; c < static_cast<std::size_t>(a.cols()); ++c) t.col_ptr[c + 1] += t.col_ptr[c];
    t.row_idx.resize(col.size());
    t.entry.resize(col.size());
    std::vector<I> next(t.col_ptr.begin(), t.col_ptr.end() - 1);
    for (index_t i = 0; i < a.rows(); ++i)
        for (I p = ptr[i]; p < ptr[i + 1]; ++p) {
            const auto q = static_cast<std::size_t>(next[static_cast<std::size_t>(col[p])]++);
            t.row_idx[q] = static_cast<I>(i);
            t.entry[q] = p;
        }
    return t;
}

// Gradients from a fresh plan; `given`: Aᵀ's pattern handed to it (host backends) instead of built.
template <class V, class I>
Grads backward(const Executor& exec, const Problem<V, I>& p, const Forward<V, I>& f, const Dense<V>& de,
               const KeptTransposed<I>* given = nullptr) {
    Dense<V> dx(Executor::cpu(), p.x.rows(), p.x.cols()), dy(Executor::cpu(), p.y.rows(), p.y.cols());
    Dense<V> dz(Executor::cpu(), p.z.rows(), p.z.cols()), da(Executor::cpu(), p.a.nnz(), 1);
    FusedPlan<V, I> plan(exec, p.a.view(), p.options);
    if (given) plan.use_transposed_pattern(given->col_ptr.data(), given->row_idx.data(), given->entry.data());
    plan.backward(de.view(), f.saved, p.x.view(), p.y.view(), p.z.view(), dx.view(), dy.view(), dz.view(), da.view());
    return {to_doubles(dx), to_doubles(dy), to_doubles(dz), to_doubles(da)};
}

}  // namespace spk::test::fused
