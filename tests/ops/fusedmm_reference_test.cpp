// The reference FusedMM forward pass against a dense brute-force oracle written here: loops over
// every (i, j) of the small dense matrix, the textbook softmax, no shared code with the library.
#include <cmath>
#include <limits>

#include "ops/fusedmm_test_support.hpp"

namespace spk::test {
namespace {

double oracle_edge(Edge e, double s) {
    switch (e.kind) {
        case Edge::Kind::identity:
            return s;
        case Edge::Kind::sigmoid:
            return 1.0 / (1.0 + std::exp(-s));
        case Edge::Kind::exp:
            return std::exp(s);
        case Edge::Kind::leaky_relu:
            return s > 0 ? s : e.param * s;
        case Edge::Kind::tanh:
            return std::tanh(s);
        case Edge::Kind::scale:
            return e.param * s;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

struct Oracle {
    std::vector<double> e, attention, row_max, row_sum, argmax;
};

template <class V, class I>
Oracle dense_oracle(const fused::Problem<V, I>& p) {
    const FusedOptions& o = p.options;
    const index_t rows = p.a.rows(), cols = p.a.cols(), H = o.heads, dz = p.dz;
    const index_t d = o.score == Score::add ? 1 : o.score == Score::value ? 0 : p.x.cols() / H;
    // A as dense arrays: presence, value, entry number.
    std::vector<int> present(static_cast<std::size_t>(rows * cols), 0);
    std::vector<double> value(present.size(), 0.0);
    std::vector<index_t> entry(present.size(), -1);
    for (index_t i = 0; i < rows; ++i)
        for (index_t q = p.a.row_ptr()[i]; q < p.a.row_ptr()[i + 1]; ++q) {
            const index_t j = p.a.col_idx()[q];
            present[i * cols + j] = 1;
            value[i * cols + j] = value_cast<double>(p.a.values()[q]);
            entry[i * cols + j] = q;
        }
    const auto x = to_doubles(p.x), y = to_doubles(p.y), z = to_doubles(p.z);
    const index_t xw = p.x.cols(), zw = p.z.cols();
    Oracle out;
    out.e.assign(static_cast<std::size_t>(rows * zw), 0.0);
    out.argmax.assign(out.e.size(), -1.0);
    out.attention.assign(static_cast<std::size_t>(p.a.nnz() * H), 0.0);
    out.row_max.assign(static_cast<std::size_t>(rows * H), -std::numeric_limits<double>::infinity());
    out.row_sum.assign(out.row_max.size(), 0.0);
    for (index_t i = 0; i < rows; ++i)
        for (index_t h = 0; h < H; ++h) {
            std::vector<index_t> js;
            std::vector<double> w;
            for (index_t j = 0; j < cols; ++j) {
                if (!present[i * cols + j]) continue;
                double s = 0.0;
                for (index_t k = h * d; k < (h + 1) * d; ++k) {
                    if (o.score == Score::dot) s += x[i * xw + k] * y[j * xw + k];
                    if (o.score == Score::neg_sqdist) s -= std::pow(x[i * xw + k] - y[j * xw + k], 2);
                }
                if (o.score == Score::add) s = x[i * xw + h] + y[j * xw + h];
                if (o.score == Score::value) s = value[i * cols + j];
                js.push_back(j);
                w.push_back(oracle_edge(o.edge, s));
            }
            if (js.empty()) continue;
            std::vector<double> alpha = w;
            if (o.normalize == Normalize::softmax) {
                double total = 0.0, biggest = -std::numeric_limits<double>::infinity();
                for (double v : w) total += std::exp(v), biggest = std::max(biggest, v);
                for (double& v : alpha) v = std::exp(v) / total;
                out.row_max[i * H + h] = biggest;
                out.row_sum[i * H + h] = total / std::exp(biggest);
            }
            for (std::size_t t = 0; t < js.size(); ++t) out.attention[entry[i * cols + js[t]] * H + h] = alpha[t];
            for (index_t k = h * dz; k < (h + 1) * dz; ++k) {
                double r = 0.0, best = -std::numeric_limits<double>::infinity();
                index_t winner = -1;
                for (std::size_t t = 0; t < js.size(); ++t) {
                    const double v = alpha[t] * z[js[t] * zw + k];
                    r += v;
                    if (winner < 0 || v > best) best = v, winner = js[t];
                }
                if (o.aggregate == Aggregate::mean) r /= static_cast<double>(js.size());
                if (o.aggregate == Aggregate::max) r = best, out.argmax[i * zw + k] = static_cast<double>(winner);
                out.e[i * zw + k] = r;
            }
        }
    return out;
}

template <class T>
std::vector<double> as_doubles(const Dense<T>& d) {
    std::vector<double> out;
    for (T v : d.values().span()) out.push_back(static_cast<double>(v));
    return out;
}

TEST(FusedmmReference, MatchesDenseOracleForEveryCombination) {
    const auto s = seed("fusedmm_reference_oracle");
    int count = 0;
    for (int heads : {1, 3})
        for (FusedOptions o : fused::all_combinations()) {
            o.heads = heads;
            o.save_attention = true;
            const auto p = fused::random_problem<double, std::int32_t>(7, 6, 2.0, 3, 2, o, s + static_cast<std::uint64_t>(count++));
            const auto f = fused::forward(Executor::reference(), p);
            const Oracle want = dense_oracle(p);
            SCOPED_TRACE(fused::describe(o));
            EXPECT_TRUE(all_close(to_doubles(f.e), want.e, 1e-12, 1e-12, p.z.cols()));
            EXPECT_TRUE(all_close(as_doubles(f.saved.attention), want.attention, 1e-12, 1e-12, heads));
            if (o.normalize == Normalize::softmax) {
                EXPECT_TRUE(all_close(as_doubles(f.saved.row_max), want.row_max, 1e-12, 1e-12, heads));
                EXPECT_TRUE(all_close(as_doubles(f.saved.row_sum), want.row_sum, 1e-12, 1e-12, heads));
            } else {
                EXPECT_TRUE(f.saved.row_max.values().empty());
            }
            if (o.aggregate == Aggregate::max)
                EXPECT_EQ(as_doubles(f.saved.argmax), want.argmax);
            else
                EXPECT_TRUE(f.saved.argmax.values().empty());
        }
}

TEST(FusedmmReference, WithoutSaveAttentionKeepsNothingOfSizeNnz) {
    const auto s = seed("fusedmm_reference_no_attention");
    FusedOptions o;
    o.normalize = Normalize::softmax;
    const auto p = fused::random_problem<float, std::int32_t>(9, 9, 3.0, 4, 4, o, s);
    const auto f = fused::forward(Executor::reference(), p);
    EXPECT_TRUE(f.saved.attention.values().empty());
    EXPECT_EQ(f.saved.row_max.rows(), 9);
    EXPECT_EQ(f.saved.row_max.cols(), 1);
}

// Row 0: a_00 = 0 and a_01 = ln 3 under softmax give weights 1/4 and 3/4.
TEST(FusedmmReference, KnownSoftmaxWeights) {
    const Executor cpu = Executor::cpu(1);
    const Csr<double, std::int32_t> a(cpu, 2, 2, {0, 2, 2}, {0, 1}, {0.0, std::log(3.0)});
    const Dense<double> z(cpu, 2, 2, {4.0, 8.0, 12.0, 16.0});
    Dense<double> e(cpu, 2, 2);
    FusedOptions o;
    o.score = Score::value;
    o.normalize = Normalize::softmax;
    fusedmm<double, std::int32_t>(Executor::reference(), a.view(), {}, {}, z.view(), e.view(), o);
    EXPECT_TRUE(all_close(to_doubles(e), {0.25 * 4 + 0.75 * 12, 0.25 * 8 + 0.75 * 16, 0.0, 0.0}, 1e-14, 1e-14, 2));
}

}  // namespace
}  // namespace spk::test
