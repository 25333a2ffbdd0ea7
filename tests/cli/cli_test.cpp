// The `spk` command as a user runs it: exit codes, help, and what each sub-command prints.
// The binary comes from $SPK_SPK_BINARY (tests/CMakeLists.txt sets it).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "spk/io.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

std::string read_file(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// A fresh folder per test for outputs and captured streams.
class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        const char* bin = std::getenv("SPK_SPK_BINARY");
        if (bin == nullptr || !fs::exists(bin)) GTEST_SKIP() << "SPK_SPK_BINARY is not set or does not exist (run through ctest)";
        binary_ = bin;
        char tmpl[] = "/tmp/spk-cli-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }

    // Runs `spk ARGS` through the shell (ARGS quoted by the caller), env: "NAME=value " prefixes.
    Result spk(const std::string& args, const std::string& env = {}) const {
        const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
        const std::string cmd = env + "'" + binary_ + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
        const int status = std::system(cmd.c_str());
        Result r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = read_file(out);
        r.err = read_file(err);
        return r;
    }

    std::string matrix(const std::string& name) const {
        const fs::path p = fs::path(spk::test::matrix_dir()) / name;
        return fs::exists(p) ? p.string() : std::string();
    }

    std::string binary_;
    fs::path dir_;
};

#define REQUIRE_MATRIX(var, name)         \
    const std::string var = matrix(name); \
    if (var.empty()) GTEST_SKIP() << name << " not found in " << spk::test::matrix_dir()

const char* const commands[] = {"info", "gen", "run", "verify", "bench", "tc"};

TEST_F(Cli, TopLevelHelpListsEveryCommand) {
    const Result r = spk("--help");
    EXPECT_EQ(r.code, 0) << r.err;
    for (const char* c : commands) EXPECT_NE(r.out.find(std::string("  ") + c + " "), std::string::npos) << c << " missing in:\n" << r.out;
}

TEST_F(Cli, EveryCommandHasHelp) {
    for (const char* c : commands) {
        const Result r = spk(std::string(c) + " --help");
        EXPECT_EQ(r.code, 0) << c << ": " << r.err;
        EXPECT_NE(r.out.find(std::string("usage: spk ") + c), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("--help"), std::string::npos) << r.out;
    }
}

TEST_F(Cli, NoCommandIsAUsageError) { EXPECT_EQ(spk("").code, 2); }

TEST_F(Cli, UnknownCommandIsAUsageError) {
    const Result r = spk("frobnicate");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
}

TEST_F(Cli, UnknownOptionIsAUsageError) {
    const Result r = spk("info banded:n=10,half_width=1 --bogus");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

TEST_F(Cli, MissingValueIsAUsageError) {
    const Result r = spk("bench --matrix banded:n=10,half_width=1 --op");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--op needs a value"), std::string::npos) << r.err;
}

TEST_F(Cli, BadRangeAndBadNumberAreUsageErrors) {
    EXPECT_EQ(spk("bench --op spmm --matrix banded:n=10,half_width=1 --n 32:16").code, 2);
    EXPECT_EQ(spk("bench --op spmm --matrix banded:n=10,half_width=1 --n 8:64:x1").code, 2);
    EXPECT_EQ(spk("run spmm banded:n=10,half_width=1 --n abc").code, 2);
    EXPECT_EQ(spk("run spmm banded:n=10,half_width=1 --reduce median").code, 2);
    EXPECT_EQ(spk("info").code, 2);  // missing MATRIX
    // Values past int are refused, not cut to 32 bits (4294967297 would have run as 1).
    const Result heads = spk("run sddmm banded:n=10,half_width=1 --heads 4294967297");
    EXPECT_EQ(heads.code, 2);
    EXPECT_NE(heads.err.find("--heads: must be between 1 and 4096, got 4294967297"), std::string::npos) << heads.err;
    EXPECT_EQ(spk("run spmm banded:n=10,half_width=1 --n 99999999999999").code, 2);
    EXPECT_EQ(spk("bench --op spmm --matrix banded:n=10,half_width=1 --reps 1000000000000").code, 2);
}

// bench --op read counts a .gz file's text by reading it through: a plain file named .gz, and two
// gzip members one after the other, hold as many bytes as their text.
TEST_F(Cli, BenchReadCountsTheTextOfGzipFiles) {
    const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n";
    const fs::path plain = dir_ / "plain.mtx.gz", json = dir_ / "read.json";
    std::ofstream(plain) << text;
    const Result r = spk("bench --op read --matrix '" + plain.string() + "' --warmup 0 --reps 1 --json '" + json.string() + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(read_file(json).find("\"bytes\": " + std::to_string(text.size())), std::string::npos) << read_file(json);
}

// A result file that cannot be written (a full disk) fails the command.
TEST_F(Cli, BenchJsonOnAFullDiskFails) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    const fs::path full = dir_ / "full.json";
    fs::create_symlink("/dev/full", full);
    const Result r = spk("bench --op spmm --matrix banded:n=10,half_width=1 --no-vendor --threads 1 --json '" + full.string() + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--json: error while writing"), std::string::npos) << r.err;
}

TEST_F(Cli, MissingFileFailsNamingThePath) {
    const std::string path = (dir_ / "no-such-matrix.mtx").string();
    const Result r = spk("info '" + path + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("spk: error:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
}

TEST_F(Cli, MalformedMatrixMarketFailsWithPathAndLine) {
    const fs::path bad = dir_ / "bad.mtx";
    std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n";
    const Result r = spk("info '" + bad.string() + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(bad.string() + ":4"), std::string::npos) << r.err;
}

TEST_F(Cli, UnknownGeneratorSpecFails) {
    const Result r = spk("info nosuchkind:n=3");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("nosuchkind"), std::string::npos) << r.err;
}

TEST_F(Cli, InfoOnKaratePrintsShapeNnzAndSymmetry) {
    REQUIRE_MATRIX(karate, "karate.mtx");
    const Result r = spk("info '" + karate + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("shape        34 x 34"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nnz          156 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("pattern yes, values yes"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("max 17"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("diagonal     0 entries"), std::string::npos) << r.out;
}

TEST_F(Cli, InfoJson) {
    REQUIRE_MATRIX(karate, "karate.mtx");
    const Result r = spk("info --json '" + karate + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"rows\": 34"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"nnz\": 156"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"pattern_symmetric\": true"), std::string::npos) << r.out;
}

TEST_F(Cli, InfoOnADirectedGraphWithEmptyRows) {
    REQUIRE_MATRIX(p2p, "p2p-Gnutella08.mtx");
    const Result r = spk("info '" + p2p + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("empty rows 3836"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("pattern no"), std::string::npos) << r.out;
}

// The distances from the diagonal (how far apart a row and the rows of B it gathers lie): a 3D
// Laplacian of 5 x 4 x 3 has its entries at distances 0 (60), 1 (x neighbours: 2 x 4 x 3 x 4 = 96),
// 5 (y: 2 x 5 x 3 x 3 = 90) and 20 (z: 2 x 5 x 4 x 2 = 80), out of 326.
TEST_F(Cli, InfoCountsDistancesFromTheDiagonal) {
    const Result r = spk("info laplace3d:nx=5,ny=4,nz=3");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* line : {"  0                    60    18.4%", "  1                    96    47.9%", "  4-7                  90    75.5%",
                             "  16-31                80   100.0%"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
    const Result j = spk("info --json laplace3d:nx=5,ny=4,nz=3");
    ASSERT_EQ(j.code, 0) << j.err;
    const std::size_t far = j.out.find("\"distance\": \"16-31\"");
    ASSERT_NE(far, std::string::npos) << j.out;
    EXPECT_EQ(j.out.find("\"entries\": 80", far), j.out.find("\"entries\"", far)) << j.out;
}

// Dense blocks as CUDA's SpGEMM takes them: elasticity's 3 x 3 (3 unknowns a node), its AMG
// prolongator's 3 x 6 (6 rigid-body modes an aggregate), none in a scalar Laplacian.
TEST_F(Cli, InfoFindsDenseBlocks) {
    const Result e = spk("info elasticity3d:n=3");
    ASSERT_EQ(e.code, 0) << e.err;
    EXPECT_NE(e.out.find("blocks       3 x 3 (rows in groups of 3 with equal columns, columns in aligned runs of 3)"), std::string::npos)
        << e.out;
    const Result l = spk("info laplace3d:nx=5,ny=4,nz=3");
    ASSERT_EQ(l.code, 0) << l.err;
    EXPECT_NE(l.out.find("blocks       none"), std::string::npos) << l.out;
    const std::string prefix = (dir_ / "el.spkb").string();
    ASSERT_EQ(spk("gen elasticity3d:n=6 --amg -o '" + prefix + "'").code, 0);
    const Result p = spk("info --json '" + (dir_ / "el_P.spkb").string() + "'");
    ASSERT_EQ(p.code, 0) << p.err;
    EXPECT_NE(p.out.find("\"block_rows\": 3,"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("\"block_cols\": 6"), std::string::npos) << p.out;
}

TEST_F(Cli, GenThenInfoRoundTrip) {
    for (const char* ext : {".mtx", ".spkb"}) {
        const std::string path = (dir_ / (std::string("banded") + ext)).string();
        const Result g = spk("gen banded:n=100,half_width=2,seed=5 -o '" + path + "'");
        ASSERT_EQ(g.code, 0) << g.err;
        EXPECT_NE(g.out.find("100 x 100, 494 nnz"), std::string::npos) << g.out;
        const Result i = spk("info '" + path + "'");
        ASSERT_EQ(i.code, 0) << i.err;
        EXPECT_NE(i.out.find("shape        100 x 100"), std::string::npos) << i.out;
        EXPECT_NE(i.out.find("nnz          494 "), std::string::npos) << i.out;
        EXPECT_NE(i.out.find("bandwidth    lower 2, upper 2"), std::string::npos) << i.out;
        // gen writes f64 values; the operations read the file as f32 (a .spkb converts on load).
        const Result r = spk("run spmm '" + path + "' --n 2 --threads 1");
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("shape     100 x 2"), std::string::npos) << r.out;
    }
}

TEST_F(Cli, GenAmgWritesThreeOperators) {
    const std::string prefix = (dir_ / "lap.mtx").string();
    const Result g = spk("gen laplace3d:n=6 --amg -o '" + prefix + "'");
    ASSERT_EQ(g.code, 0) << g.err;
    for (const char* part : {"lap_A.mtx", "lap_P.mtx", "lap_R.mtx"}) EXPECT_TRUE(fs::exists(dir_ / part)) << part;
    const Result a = spk("info '" + (dir_ / "lap_A.mtx").string() + "'");
    EXPECT_NE(a.out.find("shape        216 x 216"), std::string::npos) << a.out;
}

TEST_F(Cli, TriangleCountOfKarateIs45) {
    REQUIRE_MATRIX(karate, "karate.mtx");
    const Result r = spk("tc '" + karate + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "45\n");
}

TEST_F(Cli, VerifySpmmPassesOnAGeneratedMatrix) {
    const Result r = spk("verify spmm uniform:rows=300,cols=200,per_row=6,seed=3 --n 7 --threads 2");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("cpu, 1 thread"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("skipped"), std::string::npos) << "cuda should be reported\n" << r.out;  // no device in CI
}

TEST_F(Cli, VerifyAllOnKarate) {
    REQUIRE_MATRIX(karate, "karate.mtx");
    const Result r = spk("verify all '" + karate + "' --k 8 --n 5");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    for (const char* op : {"spmm", "sddmm", "fusedmm gat", "spgemm", "tc"}) EXPECT_NE(r.out.find(op), std::string::npos) << op;
}

TEST_F(Cli, VerifyAllOnATensorRunsMttkrpAndTtmInEveryMode) {
    const fs::path tns = dir_ / "t.tns";
    std::ofstream(tns) << "# dims: 4 x 5 x 6\n1 1 1 1.0\n2 3 4 2.0\n4 5 6 -1.5\n3 3 3 0.5\n2 3 1 0.25\n";
    const Result r = spk("verify all '" + tns.string() + "' --rank 3");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    for (const char* op : {"mttkrp mode=0", "mttkrp mode=2", "ttm mode=1"})
        EXPECT_NE(r.out.find(op), std::string::npos) << op << "\n" << r.out;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST_F(Cli, VerifyRejectsAnUnknownOperation) {
    const Result r = spk("verify spmv banded:n=10,half_width=1");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("unknown operation 'spmv'"), std::string::npos) << r.err;
}

TEST_F(Cli, RunPrintsASummaryAndWritesTheResult) {
    const std::string out = (dir_ / "c.mtx").string();
    const Result r = spk("run spmm banded:n=50,half_width=1 --n 3 --threads 1 -o '" + out + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("shape     50 x 3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("checksum"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::exists(out));
    const Result g = spk("run spgemm banded:n=50,half_width=1 --backend reference");
    ASSERT_EQ(g.code, 0) << g.err;
    EXPECT_NE(g.out.find("nnz       244"), std::string::npos) << g.out;  // pentadiagonal: 5 n - 6
}

// A CUDA run's result lives in device memory: -o copies it to the host before writing it (it used
// to fail with "lives in CUDA device 0 memory"). Sparse (.spkb) and dense (.mtx) results, each
// against the reference backend's file.
TEST_F(Cli, RunOnCudaWritesItsResult) {
    if (!spk::test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    const std::string m = " banded:n=300,half_width=3";
    const std::string c_gpu = (dir_ / "c_gpu.spkb").string(), c_ref = (dir_ / "c_ref.spkb").string();
    ASSERT_EQ(spk("run spgemm" + m + " --backend cuda -o '" + c_gpu + "'").code, 0) << read_file(dir_ / "stderr.txt");
    ASSERT_EQ(spk("run spgemm" + m + " --backend reference -o '" + c_ref + "'").code, 0);
    const auto gpu = spk::read_binary<float, std::int32_t>(c_gpu), ref = spk::read_binary<float, std::int32_t>(c_ref);
    EXPECT_EQ(gpu.row_ptr().to_vector(), ref.row_ptr().to_vector());
    EXPECT_EQ(gpu.col_idx().to_vector(), ref.col_idx().to_vector());
    const auto gv = gpu.values().to_vector(), rv = ref.values().to_vector();
    EXPECT_TRUE(spk::test::all_close(std::vector<double>(gv.begin(), gv.end()), std::vector<double>(rv.begin(), rv.end()), 1e-5, 1e-5));
    const std::string d_gpu = (dir_ / "d_gpu.mtx").string(), d_ref = (dir_ / "d_ref.mtx").string();
    ASSERT_EQ(spk("run spmm" + m + " --n 5 --backend cuda -o '" + d_gpu + "'").code, 0) << read_file(dir_ / "stderr.txt");
    ASSERT_EQ(spk("run spmm" + m + " --n 5 --backend reference -o '" + d_ref + "'").code, 0);
    const auto dg = spk::read_matrix_market_dense<float>(d_gpu).values().to_vector(),
               dr = spk::read_matrix_market_dense<float>(d_ref).values().to_vector();
    ASSERT_EQ(dg.size(), std::size_t{300 * 5});
    EXPECT_TRUE(spk::test::all_close(std::vector<double>(dg.begin(), dg.end()), std::vector<double>(dr.begin(), dr.end()), 1e-5, 1e-5));
}

TEST_F(Cli, BenchExpandsRangesAndWritesJson) {
    const std::string json = (dir_ / "bench.json").string();
    const Result r =
        spk("bench --op spmm,tc --matrix banded:n=200,half_width=3 --n=4:16:x2 --warmup 0 --reps=2 --threads 1 --json '" + json + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* n : {"  4  ", "  8  ", "  16  "}) EXPECT_NE(r.out.find(n), std::string::npos) << n << " in\n" << r.out;
    EXPECT_NE(r.out.find("geomean spmm n=16"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("geomean tc"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Medges/s over 1 graphs"), std::string::npos) << r.out;
    const std::string j = read_file(json);
    EXPECT_NE(j.find("\"results\""), std::string::npos) << j;
    EXPECT_NE(j.find("\"op\": \"tc\""), std::string::npos) << j;
    // banded n=200, half width 3: 200 x 3 - (1 + 2 + 3) undirected edges
    EXPECT_NE(j.find("\"edges\": 594"), std::string::npos) << j;
}

// --no-vendor: spk's times alone (no cuSPARSE column even on a device), what A/B runs of spk's kernels want.
TEST_F(Cli, BenchWithoutVendorBaselines) {
    const Result r = spk("bench --op spmm,spgemm --matrix banded:n=80,half_width=2 --warmup 0 --reps 1 --threads 1 --no-vendor");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("geomean spgemm"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("vendor best"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("vs cusparse"), std::string::npos) << r.out;
}

// Several --config values: each width timed under each, on the same inputs, with a row and a
// geomean line of its own ('default': the library's choice; the CPU backend ignores the
// configuration, so every row runs the same kernel here), in turn --rounds times, one result each;
// run and verify take one.
TEST_F(Cli, BenchComparesSeveralConfigurations) {
    const std::string json = (dir_ / "bench.json").string();
    const Result r = spk("bench --op spmm --matrix banded:n=200,half_width=3 --n 4,8 --config default --config rb.g8.r1.v4 "
                         "--config rb.g16.r1.v4 --rounds 2 --warmup 0 --reps 1 --threads 1 --json '" + json + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* line : {"spmm [default]", "spmm [rb.g8.r1.v4]", "spmm [rb.g16.r1.v4]", "geomean spmm n=4 [default]:",
                             "geomean spmm n=4 [rb.g8.r1.v4]:", "geomean spmm n=8 [rb.g16.r1.v4]:"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
    const std::string j = read_file(json);
    EXPECT_NE(j.find("\"variant\": \"rb.g16.r1.v4\""), std::string::npos) << j;
    EXPECT_NE(j.find("\"rounds\": 2"), std::string::npos) << j;
    std::size_t rows = 0;  // one result a variant and width, the fastest of its two rounds
    for (std::size_t at = j.find("\"variant\""); at != std::string::npos; at = j.find("\"variant\"", at + 1)) ++rows;
    EXPECT_EQ(rows, 6u) << j;
    const Result run = spk("run spmm banded:n=50,half_width=2 --config rb.g8.r1.v4 --config rb.g16.r1.v4");
    EXPECT_EQ(run.code, 2);
    EXPECT_NE(run.err.find("--config: one configuration here"), std::string::npos) << run.err;
}

// bench sums dense results where they lie (Operation::checksum), run sums output()'s copy: the
// two must agree, the backward pass's four gradients included, and so must the sparse result's nnz.
TEST_F(Cli, BenchChecksumsAgreeWithRun) {
    const auto number_after = [](const std::string& text, const std::string& key) {
        const std::size_t at = text.find(key);
        return at == std::string::npos ? std::nan("") : std::stod(text.substr(at + key.size()));
    };
    const std::string json = (dir_ / "bench.json").string();
    const std::string m = " banded:n=60,half_width=2 --threads 1";
    struct Case {
        std::string op, run_options, bench_options;  // run takes --k for the feature width, bench --n for every width
    };
    const std::string attention = " --heads 2 --preset attention";
    for (const Case& c : {Case{"spmm", " --n 5", " --n 5"}, Case{"sddmm", " --k 4 --heads 2", " --n 4 --heads 2"},
                          Case{"fusedmm", " --k 4" + attention, " --n 4" + attention},
                          Case{"fusedmm", " --k 4 --backward" + attention, " --n 4 --backward" + attention}, Case{"spgemm", "", ""},
                          Case{"spgemm", " --dtype f64", " --dtype f64"}}) {
        const Result run = spk("run " + c.op + m + c.run_options);
        ASSERT_EQ(run.code, 0) << c.op << c.run_options << ": " << run.err;
        const Result bench = spk("bench --op " + c.op + c.bench_options + " --matrix" + m + " --warmup 0 --reps 1 --json '" + json + "'");
        ASSERT_EQ(bench.code, 0) << c.op << c.bench_options << ": " << bench.err;
        const std::string j = read_file(json);
        const double want = number_after(run.out, "checksum  "), got = number_after(j, "\"checksum\": ");
        EXPECT_NEAR(got, want, 1e-6 * std::max(1.0, std::abs(want))) << c.op << c.run_options;
        EXPECT_NE(want, 0.0) << c.op << c.run_options;  // random inputs: a zero sum would mean an empty result
        if (c.op == "spgemm") {
            EXPECT_EQ(number_after(j, "\"result_nnz\": "), number_after(run.out, "nnz       ")) << j;
        }
    }
}

// --dtype f64 runs spgemm in double (the inputs widened from f32): the same pattern and, to f32's
// rounding, the same sum as in f32; the other operations refuse it.
TEST_F(Cli, SpgemmRunsInF64AndOnlySpgemmTakesDtype) {
    const std::string m = " banded:n=80,half_width=2 --threads 1 --backend reference";
    const Result f32 = spk("run spgemm" + m), f64 = spk("run spgemm" + m + " --dtype f64");
    ASSERT_EQ(f32.code, 0) << f32.err;
    ASSERT_EQ(f64.code, 0) << f64.err;
    EXPECT_NE(f64.out.find("spgemm plus_times f64"), std::string::npos) << f64.out;
    EXPECT_EQ(f32.out.find(" f64"), std::string::npos) << f32.out;
    const auto value_after = [](const std::string& text, const std::string& key) { return std::stod(text.substr(text.find(key) + key.size())); };
    EXPECT_EQ(value_after(f64.out, "nnz       "), value_after(f32.out, "nnz       "));
    const double sum32 = value_after(f32.out, "checksum  "), sum64 = value_after(f64.out, "checksum  ");
    EXPECT_NE(sum64, 0.0);
    EXPECT_NEAR(sum64, sum32, 1e-4 * std::abs(sum64));
    const Result spmm = spk("bench --op spmm --dtype f64 --matrix" + m);
    EXPECT_EQ(spmm.code, 2);
    EXPECT_NE(spmm.err.find("--dtype f64 is for spgemm only"), std::string::npos) << spmm.err;
    const Result bad = spk("run spgemm" + m + " --dtype f16");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("'f16' is not one of f32, f64"), std::string::npos) << bad.err;
}

// --dtype f64 reads A in double: a value float cannot hold survives into C.
TEST_F(Cli, SpgemmF64KeepsTheInputsPrecision) {
    const fs::path in = dir_ / "fine.mtx", out = dir_ / "c.mtx";
    std::ofstream(in) << "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0000000001\n2 1 3\n";
    const Result r = spk("run spgemm '" + in.string() + "' --dtype f64 --threads 1 -o '" + out.string() + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream c(out);
    std::string line;
    while (std::getline(c, line) && (line.empty() || line[0] == '%')) {
    }
    double first = 0;
    std::int64_t i = 0, j = 0;
    ASSERT_TRUE(std::getline(c, line));
    std::istringstream(line) >> i >> j >> first;
    EXPECT_EQ(i, 1);
    EXPECT_EQ(j, 1);
    EXPECT_NEAR(first, 1.0000000002, 1e-15);
}

// A damaged .spkb file (written as f64/int64, read by the operations as f32/int32) fails with
// what is wrong with it, not with the type it was not read as.
TEST_F(Cli, DamagedBinaryFilesSayWhatIsWrong) {
    const fs::path good = dir_ / "m.spkb";
    ASSERT_EQ(spk("gen uniform:rows=50,cols=40,per_row=3 -o '" + good.string() + "'").code, 0);
    std::string bytes = read_file(good);
    ASSERT_GT(bytes.size(), 200u);
    const fs::path flipped = dir_ / "flipped.spkb", cut = dir_ / "cut.spkb";
    std::string damaged = bytes;
    damaged[200] = static_cast<char>(damaged[200] ^ 0x10);
    std::ofstream(flipped, std::ios::binary) << damaged;
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, 100);
    const Result f = spk("run spmm '" + flipped.string() + "' --n 2 --threads 1");
    EXPECT_EQ(f.code, 1);
    EXPECT_NE(f.err.find("checksum mismatch"), std::string::npos) << f.err;
    const Result c = spk("run spmm '" + cut.string() + "' --n 2 --threads 1");
    EXPECT_EQ(c.code, 1);
    EXPECT_NE(c.err.find("truncated file: 100 bytes"), std::string::npos) << c.err;
}

TEST_F(Cli, BenchSuiteResolvesSharedMatrices) {
    REQUIRE_MATRIX(karate, "karate.mtx");
    const fs::path suite = dir_ / "suite.txt";
    std::ofstream(suite) << "# a comment\nkarate.mtx   # relative to the shared folder\n\nbanded:n=30,half_width=1\n";
    const std::string env = "SPK_MATRICES='" + spk::test::matrix_dir() + "' ";
    const Result r = spk("bench --op read,spmm --suite '" + suite.string() + "' --warmup 0 --reps 1", env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("karate"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("MB/s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("banded:n=30,half_width=1"), std::string::npos) << r.out;
}

// A suite's bad line is named by file and line; a folder or a line of control characters is refused.
TEST_F(Cli, BenchSuiteErrorsNameTheLine) {
    const fs::path suite = dir_ / "suite.txt", controls = dir_ / "controls.txt";
    std::ofstream(suite) << "banded:n=30,half_width=1\n# fine so far\nnosuchkind:x=1\n";
    const Result r = spk("bench --op spmm --suite '" + suite.string() + "' --warmup 0 --reps 1 --no-vendor --threads 1");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(suite.string() + ":3: 'nosuchkind:x=1'"), std::string::npos) << r.err;
    std::ofstream(controls) << std::string("\x01\x02\n", 3);
    const Result c = spk("bench --op spmm --suite '" + controls.string() + "'");
    EXPECT_EQ(c.code, 1);
    EXPECT_NE(c.err.find(controls.string() + ":1: a control character"), std::string::npos) << c.err;
    const Result d = spk("bench --op spmm --suite '" + dir_.string() + "'");
    EXPECT_EQ(d.code, 1);
    EXPECT_NE(d.err.find("is not a file"), std::string::npos) << d.err;
}

}  // namespace
