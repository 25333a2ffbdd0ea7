// Triangle counting: known small graphs, cpu against the reference (the masked SpGEMM itself),
// and every square shared matrix against MANIFEST.tsv.
#include <fstream>
#include <sstream>

#include "ops/spgemm_test_support.hpp"
#include "spk/io.hpp"

namespace spk {
namespace {

template <class V = double, class I = std::int32_t>
Csr<V, I> graph(index_t n, const std::vector<std::pair<index_t, index_t>>& edges) {
    Coo<V, I> coo{n, n, {}, {}, {}};
    for (const auto& [u, v] : edges) {
        coo.row_idx.push_back(static_cast<I>(u));
        coo.col_idx.push_back(static_cast<I>(v));
        coo.values.push_back(V(1));
    }
    return coo_to_csr(coo);
}

std::vector<Executor> all_executors() {
    std::vector<Executor> e{Executor::reference()};
    for (const Executor& x : test::backends_under_test())
        if (x.is_host()) e.push_back(x);
    return e;
}

TEST(TriangleCount, CompleteGraphK4HasFour) {
    const auto k4 = graph(4, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}});
    for (const Executor& exec : all_executors()) EXPECT_EQ(triangle_count(exec, k4.view()), 4u) << exec.name();
}

TEST(TriangleCount, DuplicateEdgesSelfLoopsAndBothDirectionsCountOnce) {
    // One triangle 0-1-2 given as (0,1) twice, (1,0), (2,1), (0,2), (2,0), plus self-loops and a pendant edge.
    Coo<float, std::int64_t> coo{5, 5, {0, 0, 1, 2, 0, 2, 0, 1, 2, 3}, {1, 1, 0, 1, 2, 0, 0, 1, 2, 4}, {}};
    coo.values.assign(coo.row_idx.size(), 1.0f);
    // coo_to_csr sums duplicates; also build an unsorted CSR with the repeats kept.
    const auto summed = coo_to_csr(coo);
    const Csr<float, std::int64_t> repeated(Executor::cpu(), 5, 5, std::vector<std::int64_t>{0, 4, 6, 9, 10, 10},
                                            {1, 2, 1, 0, 0, 1, 2, 1, 2, 4}, std::vector<float>(10, 1.0f), false);
    for (const Executor& exec : all_executors()) {
        EXPECT_EQ(triangle_count(exec, summed.view()), 1u) << exec.name();
        EXPECT_EQ(triangle_count(exec, repeated.view()), 1u) << exec.name();
    }
}

TEST(TriangleCount, EmptyGraphsAndPatternOnlyInput) {
    const Csr<double, std::int32_t> empty(Executor::cpu(), 0, 0, std::vector<std::int32_t>{0}, {}, {});
    const auto no_edges = graph(7, {});
    auto k3 = graph(3, {{0, 1}, {1, 2}, {2, 0}});
    CsrView<const double, std::int32_t> pattern_only = k3.view();
    pattern_only.values = nullptr;  // values are ignored
    for (const Executor& exec : all_executors()) {
        EXPECT_EQ(triangle_count(exec, empty.view()), 0u);
        EXPECT_EQ(triangle_count(exec, no_edges.view()), 0u);
        EXPECT_EQ(triangle_count(exec, pattern_only), 1u);
    }
}

TEST(TriangleCount, RandomGraphsCpuMatchesReference) {
    const std::uint64_t seed = test::seed("triangle_count_random");
    for (int round = 0; round < 4; ++round) {
        const index_t n = 30 + 37 * round;
        const auto g = test::random_csr<double, std::int64_t>(n, n, 2.0 + 3.0 * round, seed + static_cast<std::uint64_t>(round));
        const std::uint64_t expected = triangle_count(Executor::reference(), g.view());
        for (const Executor& exec : test::backends_under_test())
            if (exec.is_host()) {
                EXPECT_EQ(triangle_count(exec, g.view()), expected) << exec.name() << " n " << n;
            }
    }
}

TEST(TriangleCount, RejectsNonSquare) {
    const auto g = test::random_csr<double, std::int32_t>(3, 4, 2.0, 1);
    test::expect_error([&] { (void)triangle_count(Executor::cpu(2), g.view()); }, ErrorKind::ShapeMismatch, "G: shape 3 x 4");
}

// MANIFEST.tsv: the first line names the columns; a square matrix's count is expected_triangles
// (the number before the bracket) where present, else computed_triangles.
std::vector<std::pair<std::string, std::uint64_t>> manifest_counts() {
    std::ifstream in(test::matrix_dir() + "/MANIFEST.tsv");
    std::vector<std::pair<std::string, std::uint64_t>> out;
    std::string line;
    if (!std::getline(in, line)) return out;
    const auto split = [](const std::string& s) {
        std::vector<std::string> fields;
        std::stringstream ss(s);
        std::string f;
        while (std::getline(ss, f, '\t')) fields.push_back(f);
        return fields;
    };
    const auto names = split(line);
    const auto column = [&](const std::string& name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
    const auto file = column("file"), rows = column("rows"), cols = column("cols"), expected = column("expected_triangles"),
               computed = column("computed_triangles");
    while (std::getline(in, line)) {
        const auto f = split(line);
        const auto at = [&](std::ptrdiff_t c) { return c < static_cast<std::ptrdiff_t>(f.size()) ? f[c] : std::string(); };
        const std::string name = at(file);
        if (!(name.ends_with(".mtx") || name.ends_with(".mtx.gz")) || at(rows).empty() || at(rows) != at(cols)) continue;
        std::string count = at(expected).empty() ? at(computed) : at(expected).substr(0, at(expected).find(' '));
        if (count.empty()) continue;
        out.emplace_back(name, std::stoull(count));
    }
    return out;
}

TEST(TriangleCount, SharedMatricesMatchManifest) {
    const auto counts = manifest_counts();
    if (counts.empty()) GTEST_SKIP() << "no MANIFEST.tsv in " << test::matrix_dir();
    std::printf("[ info     ] %zu square matrices with a triangle count in MANIFEST.tsv\n", counts.size());
    for (const auto& [name, expected] : counts) {
        const auto g = read_matrix_market<double, std::int32_t>(test::matrix_dir() + "/" + name);
        for (const Executor& exec : test::backends_under_test())
            if (exec.is_host()) {
                EXPECT_EQ(triangle_count(exec, g.view()), expected) << name << " on " << exec.name();
            }
    }
}

TEST(TriangleCount, ReferenceOnSmallSharedMatrices) {
    // The reference (masked SpGEMM) on the smallest graphs: the oracle agrees with the manifest too.
    const auto counts = manifest_counts();
    if (counts.empty()) GTEST_SKIP() << "no MANIFEST.tsv in " << test::matrix_dir();
    int checked = 0;
    for (const auto& [name, expected] : counts) {
        if (name != "karate.mtx" && name != "west0067.mtx" && name != "jagmesh7.mtx") continue;
        const auto g = read_matrix_market<double, std::int32_t>(test::matrix_dir() + "/" + name);
        EXPECT_EQ(triangle_count(Executor::reference(), g.view()), expected) << name;
        ++checked;
    }
    EXPECT_EQ(checked, 3);
}

}  // namespace
}  // namespace spk
