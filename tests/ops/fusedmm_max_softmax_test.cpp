// Max aggregation under a row softmax, where a dominant score makes every other α exactly 0:
// all their α Z are +-0 and tie, and the reference's rule (row order, the first maximum wins,
// -0 == +0) must pick the winner, not the order in which an online softmax rescaled its running
// maximum. The winners are worked out by hand, and the cpu backend must agree with them and
// with the reference.
#include <cmath>
#include <type_traits>

#include "ops/fusedmm_test_support.hpp"

namespace spk::test {
namespace {

template <class T>
std::vector<double> as_doubles(const Dense<T>& d) {
    std::vector<double> out;
    for (T v : d.values().span()) out.push_back(value_cast<double>(v));
    return out;
}

std::vector<bool> sign_bits(const std::vector<double>& v) {
    std::vector<bool> out;
    for (double x : v) out.push_back(std::signbit(x));
    return out;
}

// A (3 x 5): row 0 holds columns 0..3 with scores 0, 1, 2, 3, then column 4 with the dominant
// score; row 1 holds column 4 (dominant) first, then columns 0 and 1; row 2 is empty.
// Z (5 x heads*dz): columns 0..3 grow with j, positive on even features and negative on odd
// ones; column 4 (the dominant entry) is negative on every feature.
template <class V>
fused::Problem<V, std::int32_t> dominant_score_problem(double dominant, Edge edge, int heads, bool save) {
    constexpr index_t dz = 4;
    const Executor host = Executor::cpu();
    fused::Problem<V, std::int32_t> p;
    const std::vector<double> scores{0, 1, 2, 3, dominant, dominant, 0, 1};
    std::vector<V> values;
    for (double s : scores) values.push_back(value_cast<V>(s));
    p.a = Csr<V, std::int32_t>(host, 3, 5, {0, 5, 8, 8}, {0, 1, 2, 3, 4, 4, 0, 1}, values);
    std::vector<V> z;
    for (index_t j = 0; j < 5; ++j)
        for (index_t k = 0; k < heads * dz; ++k) {
            const double magnitude = static_cast<double>(j + 1 + k);
            z.push_back(value_cast<V>(j == 4 ? -magnitude : k % 2 == 0 ? magnitude : -magnitude));
        }
    p.z = Dense<V>(host, 5, heads * dz, z);
    p.x = Dense<V>(host, 0, 0);
    p.y = Dense<V>(host, 0, 0);
    p.options.score = Score::value;
    p.options.edge = edge;
    p.options.normalize = Normalize::softmax;
    p.options.aggregate = Aggregate::max;
    p.options.heads = heads;
    p.options.save_attention = save;
    p.dz = dz;
    return p;
}

template <class V>
void expect_first_zero_wins(const std::string& type) {
    // exp(w - m) of every other entry underflows to 0 for both: 2000 with the identity edge,
    // 8 (w = exp(8) ~ 2981) with the exp edge.
    const std::pair<double, Edge> cases[] = {{2000.0, Edge::identity()}, {8.0, Edge::exp()}};
    for (const auto& [dominant, edge] : cases)
        for (int heads : {1, 2})
            for (bool save : {false, true}) {
                const auto p = dominant_score_problem<V>(dominant, edge, heads, save);
                const index_t width = p.z.cols();
                // Row 0: every α Z but the last is +-0 and beats column 4's negative value; the
                // first of them, column 0, wins. Row 1: column 4 (α = 1) is negative, the zeros of
                // columns 0 and 1 beat it, column 0 first. Row 2 is empty: no winner, E = 0.
                std::vector<double> argmax(static_cast<std::size_t>(3 * width), 0.0);
                std::fill(argmax.begin() + 2 * width, argmax.end(), -1.0);
                // E = α_0 Z_0 = +-0 with Z_0's sign in rows 0 and 1; +0 in the empty row.
                std::vector<double> e(static_cast<std::size_t>(3 * width), 0.0);
                for (index_t i = 0; i < 2; ++i)
                    for (index_t k = 0; k < width; ++k) e[i * width + k] = std::copysign(0.0, value_cast<double>(p.z.values()[k]));
                const auto want = fused::forward(Executor::reference(), p);
                // In f32 the reference's sum is exp(w - m) of the double w = exp(8) against m
                // rounded to float: 1 - 2e-5 where the cpu backend's float w gives 1.
                const double stat_rtol = std::is_same_v<V, float> ? 1e-4 : 1e-12;
                ASSERT_EQ(as_doubles(want.saved.argmax), argmax) << "the reference's rule, by hand";
                for (const Executor& exec : fused::host_backends()) {
                    SCOPED_TRACE(type + " " + exec.name() + " " + fused::describe(p.options));
                    const auto got = fused::forward(exec, p);
                    EXPECT_EQ(as_doubles(got.saved.argmax), argmax) << "argmax";
                    EXPECT_EQ(to_doubles(got.e), e) << "E";
                    EXPECT_EQ(sign_bits(to_doubles(got.e)), sign_bits(e)) << "E's signs";
                    EXPECT_EQ(sign_bits(to_doubles(got.e)), sign_bits(to_doubles(want.e))) << "E's signs against the reference";
                    EXPECT_TRUE(all_close(as_doubles(got.saved.row_max), as_doubles(want.saved.row_max), stat_rtol, 0.0)) << "row_max";
                    EXPECT_TRUE(all_close(as_doubles(got.saved.row_sum), as_doubles(want.saved.row_sum), stat_rtol, 0.0)) << "row_sum";
                    EXPECT_EQ(as_doubles(got.saved.attention), as_doubles(want.saved.attention)) << "attention";
                    EXPECT_EQ(got.saved.attention.rows(), save ? p.a.nnz() : 0);
                }
            }
}

TEST(FusedmmMaxSoftmax, DominantScoreLeavesTheFirstZeroWinningInF32) { expect_first_zero_wins<float>("f32"); }
TEST(FusedmmMaxSoftmax, DominantScoreLeavesTheFirstZeroWinningInF64) { expect_first_zero_wins<double>("f64"); }

// Random rows with scores up to +-1000: most α underflow to 0 and their α Z tie at +-0 all over;
// the winners and E (signs included) must be the reference's.
TEST(FusedmmMaxSoftmax, ManyUnderflowedWeightsTieAsInTheReference) {
    const auto s = seed("fusedmm_max_softmax_underflow");
    std::uint64_t k = 0;
    for (Edge edge : {Edge::identity(), Edge::leaky_relu(0.2f), Edge::scale(2.0f)})
        for (int heads : {1, 3})
            for (bool save : {false, true}) {
                FusedOptions o;
                o.score = Score::value;
                o.edge = edge;
                o.normalize = Normalize::softmax;
                o.aggregate = Aggregate::max;
                o.heads = heads;
                o.save_attention = save;
                auto p = fused::random_problem<double, std::int32_t>(300, 200, 8.0, 0, 5, o, s + k++);
                for (double& v : p.a.values().span()) v *= 1000.0;
                const auto want = fused::forward(Executor::reference(), p);
                for (const Executor& exec : fused::host_backends()) {
                    SCOPED_TRACE(exec.name() + " " + fused::describe(o));
                    const auto got = fused::forward(exec, p);
                    EXPECT_EQ(as_doubles(got.saved.argmax), as_doubles(want.saved.argmax)) << "argmax";
                    EXPECT_EQ(sign_bits(to_doubles(got.e)), sign_bits(to_doubles(want.e))) << "E's signs";
                    EXPECT_TRUE(all_close(to_doubles(got.e), to_doubles(want.e), 1e-12, 1e-12, p.z.cols())) << "E";
                    EXPECT_TRUE(all_close(as_doubles(got.saved.row_sum), as_doubles(want.saved.row_sum), 1e-12, 0.0)) << "row_sum";
                    EXPECT_TRUE(all_close(as_doubles(got.saved.attention), as_doubles(want.saved.attention), 1e-12, 1e-12)) << "attention";
                }
            }
}

}  // namespace
}  // namespace spk::test
