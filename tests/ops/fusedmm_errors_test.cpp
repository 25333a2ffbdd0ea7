// FusedMM bad input: each check names the argument and has the right error kind.
#include <cmath>
#include <limits>

#include "ops/fusedmm_test_support.hpp"

namespace spk::test {
namespace {

using P = fused::Problem<float, std::int32_t>;

FusedOptions options(Score score, int heads, Normalize n = Normalize::none, Aggregate g = Aggregate::sum) {
    FusedOptions o;
    o.score = score;
    o.heads = heads;
    o.normalize = n;
    o.aggregate = g;
    return o;
}

// A: 6 x 5; dot with 2 heads of width 3 (X 6 x 6, Y 5 x 6); Z 5 x 4; E 6 x 4.
P problem(const FusedOptions& o) { return fused::random_problem<float, std::int32_t>(6, 5, 2.0, 3, 2, o, 7); }

void forward_with(const P& p, const Dense<float>& x, const Dense<float>& y, const Dense<float>& z, const Dense<float>& e_shape) {
    Dense<float> e(Executor::cpu(), e_shape.rows(), e_shape.cols());
    FusedPlan<float, std::int32_t>(Executor::cpu(1), p.a.view(), p.options).forward(x.view(), y.view(), z.view(), e.view());
}

Dense<float> zeros(index_t rows, index_t cols) {
    return Dense<float>(Executor::cpu(), rows, cols, std::vector<float>(static_cast<std::size_t>(rows * cols), 0.f));
}

TEST(FusedmmErrors, ForwardShapesNameTheArgument) {
    const P p = problem(options(Score::dot, 2));
    const Dense<float> e = zeros(6, 4);
    expect_error([&] { forward_with(p, zeros(5, 6), p.y, p.z, e); }, ErrorKind::ShapeMismatch, "X");
    expect_error([&] { forward_with(p, p.x, zeros(5, 4), p.z, e); }, ErrorKind::ShapeMismatch, "Y");
    expect_error([&] { forward_with(p, p.x, zeros(6, 6), p.z, e); }, ErrorKind::ShapeMismatch, "Y");
    expect_error([&] { forward_with(p, p.x, p.y, zeros(4, 4), e); }, ErrorKind::ShapeMismatch, "Z");
    expect_error([&] { forward_with(p, p.x, p.y, p.z, zeros(6, 2)); }, ErrorKind::ShapeMismatch, "E");
    expect_error([&] { forward_with(p, p.x, p.y, p.z, zeros(5, 4)); }, ErrorKind::ShapeMismatch, "E");

    const P add = problem(options(Score::add, 2));
    expect_error([&] { forward_with(add, zeros(6, 3), zeros(5, 2), add.z, e); }, ErrorKind::ShapeMismatch, "X");
    expect_error([&] { forward_with(add, zeros(6, 2), zeros(5, 1), add.z, e); }, ErrorKind::ShapeMismatch, "Y");
}

TEST(FusedmmErrors, HeadsMustDivideTheWidths) {
    const P p = problem(options(Score::dot, 2));
    expect_error([&] { forward_with(p, zeros(6, 5), zeros(5, 5), p.z, zeros(6, 4)); }, ErrorKind::InvalidArgument,
                 "X: 5 columns do not split into 2 heads");
    expect_error([&] { forward_with(p, p.x, p.y, zeros(5, 3), zeros(6, 3)); }, ErrorKind::InvalidArgument,
                 "Z: 3 columns do not split into 2 heads");
}

TEST(FusedmmErrors, BadOptions) {
    const P p = problem(options(Score::dot, 1));
    const auto plan = [&](FusedOptions o) { FusedPlan<float, std::int32_t>(Executor::cpu(1), p.a.view(), o); };
    expect_error([&] { plan(options(Score::dot, 0)); }, ErrorKind::InvalidArgument, "heads");
    FusedOptions nan_slope;
    nan_slope.edge = Edge::leaky_relu(std::numeric_limits<float>::quiet_NaN());
    expect_error([&] { plan(nan_slope); }, ErrorKind::InvalidArgument, "edge");
    expect_error([&] { plan(nan_slope); }, ErrorKind::InvalidArgument, "leaky_relu(nan)");
    FusedOptions bad_score;
    bad_score.score = static_cast<Score>(42);
    expect_error([&] { plan(bad_score); }, ErrorKind::InvalidArgument, "score");
    // The CUDA forward's configuration is checked on every backend.
    for (const char* config : {"team3", "team16", "", "Team4", "team4 ", "rows", "rows-8", "team2.", "rows8.team2"}) {
        FusedOptions bad_config;
        bad_config.config = config;
        expect_error([&] { plan(bad_config); }, ErrorKind::InvalidArgument, "FusedOptions.config '" + std::string(config) + "'");
    }
    for (const char* config : {"auto", "team1", "team2", "team4", "team8", "rows0", "rows64", "team2.rows32"}) {
        FusedOptions good_config;
        good_config.config = config;
        EXPECT_NO_THROW(plan(good_config)) << config;
    }
    // The value score reads A's values: a pattern-only A is rejected.
    CsrView<const float, std::int32_t> pattern = p.a.view();
    pattern.values = nullptr;
    expect_error([&] { FusedPlan<float, std::int32_t>(Executor::cpu(1), pattern, options(Score::value, 1)); }, ErrorKind::InvalidArgument,
                 "A");
    // The other scores do not need them.
    EXPECT_NO_THROW((FusedPlan<float, std::int32_t>(Executor::cpu(1), pattern, options(Score::dot, 1))));
}

TEST(FusedmmErrors, BackwardChecksTheForwardOutputItIsGiven) {
    FusedOptions o = options(Score::dot, 2);
    o.normalize = Normalize::softmax;
    const P p = problem(o);
    const FusedPlan<float, std::int32_t> plan(Executor::cpu(1), p.a.view(), o);
    Dense<float> e(Executor::cpu(), p.a.rows(), p.z.cols());
    const auto saved = plan.forward(p.x.view(), p.y.view(), p.z.view(), e.view());
    const Dense<float> de = random_dense<float>(p.a.rows(), p.z.cols(), 7);
    Dense<float> dx(Executor::cpu(), p.x.rows(), p.x.cols()), wrong(Executor::cpu(), p.a.rows() + 1, p.z.cols());
    expect_error([&] { plan.backward(de.view(), saved, p.x.view(), p.y.view(), p.z.view(), dx.view(), {}, {}, {}, wrong.view()); },
                 ErrorKind::ShapeMismatch, "E");
}

TEST(FusedmmErrors, EdgeNamesCarryTheirParameterInShortestForm) {
    EXPECT_EQ(to_string(Edge::leaky_relu(0.2f)), "leaky_relu(0.2)");
    EXPECT_EQ(to_string(Edge::scale(-1.5f)), "scale(-1.5)");
    EXPECT_EQ(to_string(Edge::scale(1e-7f)), "scale(1e-07)");
    EXPECT_EQ(to_string(Edge::exp()), "exp");
}

TEST(FusedmmErrors, BackwardShapesNameTheArgument) {
    for (const Executor& exec : {Executor::reference(), Executor::cpu(1)}) {
        FusedOptions o = options(Score::dot, 2, Normalize::softmax, Aggregate::max);
        o.save_attention = true;
        const P p = problem(o);
        const auto f = fused::forward(exec, p);
        const FusedPlan<float, std::int32_t> plan(exec, p.a.view(), o);
        Dense<float> de = zeros(6, 4), dx = zeros(6, 6), dy = zeros(5, 6), dz = zeros(5, 4), da = zeros(p.a.nnz(), 1);
        const auto run = [&](const Dense<float>& dE, const FusedSaved<float, std::int32_t>& saved, Dense<float>& dX, Dense<float>& dY,
                             Dense<float>& dZ, Dense<float>& dA) {
            plan.backward(dE.view(), saved, p.x.view(), p.y.view(), p.z.view(), dX.view(), dY.view(), dZ.view(), dA.view());
        };
        EXPECT_NO_THROW(run(de, f.saved, dx, dy, dz, da));
        Dense<float> bad_de = zeros(6, 2), bad_dx = zeros(6, 4), bad_dy = zeros(4, 6), bad_dz = zeros(5, 2),
                     bad_da = zeros(p.a.nnz() + 1, 1);
        expect_error([&] { run(bad_de, f.saved, dx, dy, dz, da); }, ErrorKind::ShapeMismatch, "dE");
        expect_error([&] { run(de, f.saved, bad_dx, dy, dz, da); }, ErrorKind::ShapeMismatch, "dX");
        expect_error([&] { run(de, f.saved, dx, bad_dy, dz, da); }, ErrorKind::ShapeMismatch, "dY");
        expect_error([&] { run(de, f.saved, dx, dy, bad_dz, da); }, ErrorKind::ShapeMismatch, "dZ");
        expect_error([&] { run(de, f.saved, dx, dy, dz, bad_da); }, ErrorKind::ShapeMismatch, "dA");
        // A FusedSaved that does not come from this plan's forward pass.
        const FusedSaved<float, std::int32_t> nothing;
        expect_error([&] { run(de, nothing, dx, dy, dz, da); }, ErrorKind::ShapeMismatch, "saved.row_max");
        FusedSaved<float, std::int32_t> no_argmax = fused::forward(exec, p).saved;
        no_argmax.argmax = Dense<std::int32_t>();
        expect_error([&] { run(de, no_argmax, dx, dy, dz, da); }, ErrorKind::ShapeMismatch, "saved.argmax");
        FusedSaved<float, std::int32_t> no_attention = fused::forward(exec, p).saved;
        no_attention.attention = Dense<float>();
        expect_error([&] { run(de, no_attention, dx, dy, dz, da); }, ErrorKind::ShapeMismatch, "saved.attention");
    }
}

// forward() into the caller's arrays keeps what the allocating forward keeps, and backward() reads
// it there; saved arrays the kernels cannot index (not tight, column-major) are refused by name.
TEST(FusedmmErrors, SavedArraysMayBeTheCallers) {
    using Saved = FusedSaved<float, std::int32_t>;
    FusedOptions o = options(Score::dot, 2, Normalize::softmax, Aggregate::max);
    o.save_attention = true;
    const P p = problem(o);
    const FusedPlan<float, std::int32_t> plan(Executor::cpu(1), p.a.view(), o);
    Dense<float> e(Executor::cpu(), 6, 4), e_own(Executor::cpu(), 6, 4);
    const Saved allocated = plan.forward(p.x.view(), p.y.view(), p.z.view(), e.view());
    Saved own;  // the caller's arrays, filled by the view overload
    own.row_max = zeros(6, 2);
    own.row_sum = zeros(6, 2);
    own.argmax = Dense<std::int32_t>(Executor::cpu(), 6, 4);
    own.attention = zeros(p.a.nnz(), 2);
    plan.forward(p.x.view(), p.y.view(), p.z.view(), e_own.view(), own.out());
    EXPECT_EQ(e_own.values().to_vector(), e.values().to_vector());
    EXPECT_EQ(own.row_max.values().to_vector(), allocated.row_max.values().to_vector());
    EXPECT_EQ(own.row_sum.values().to_vector(), allocated.row_sum.values().to_vector());
    EXPECT_EQ(own.argmax.values().to_vector(), allocated.argmax.values().to_vector());
    EXPECT_EQ(own.attention.values().to_vector(), allocated.attention.values().to_vector());

    const Dense<float> de = random_dense<float>(6, 4, 3);
    Dense<float> dx = zeros(6, 6), dx_own = zeros(6, 6);
    plan.backward(de.view(), allocated, p.x.view(), p.y.view(), p.z.view(), dx.view(), {}, {});
    plan.backward(de.view(), own.view(), p.x.view(), p.y.view(), p.z.view(), dx_own.view(), {}, {});
    EXPECT_EQ(dx_own.values().to_vector(), dx.values().to_vector());

    FusedSavedOut<float, std::int32_t> wide = own.out();
    Dense<float> padded = zeros(6, 3);
    wide.row_max = padded.view();
    wide.row_max.cols = 2;  // 6 x 2 inside a 6 x 3 array: ld 3
    expect_error([&] { plan.forward(p.x.view(), p.y.view(), p.z.view(), e_own.view(), wide); }, ErrorKind::InvalidArgument,
                 "saved.row_max: must be row-major with ld = cols (2), got ld 3");
    Dense<float> column_major(Executor::cpu(), 6, 2, Layout::col_major);
    FusedSavedIn<float, std::int32_t> transposed = own.view();
    transposed.row_sum = column_major.view();
    expect_error([&] { plan.backward(de.view(), transposed, p.x.view(), p.y.view(), p.z.view(), dx.view(), {}, {}); },
                 ErrorKind::InvalidArgument, "saved.row_sum: must be row-major with ld = cols (2), got column-major");
}

}  // namespace
}  // namespace spk::test
