// Spec strings: every kind, defaults, n shorthand, and errors that name what is wrong.
#include <gtest/gtest.h>

#include "generate/generate_test_helpers.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

using test::identical;

void expect_spec_error(const std::string& spec, const std::string& fragment) {
    try {
        generate<float, std::int32_t>(spec);
        ADD_FAILURE() << spec << ": no error, expected one mentioning '" << fragment << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << spec << ": " << e.what();
    }
}

TEST(Spec, RandomKindsMatchTheirFunctions) {
    using M = Csr<double, std::int32_t>;
    EXPECT_TRUE(identical(generate<double, std::int32_t>("uniform:rows=300,cols=200,per_row=4.5,seed=9"),
                          M(generate_uniform<double, std::int32_t>(300, 200, 4.5, 9))));
    EXPECT_TRUE(identical(generate<double, std::int32_t>("uniform:n=100"), M(generate_uniform<double, std::int32_t>(100, 100, 16, 1))));
    EXPECT_TRUE(identical(generate<double, std::int32_t>("rmat:scale=8"),
                          M(generate_rmat<double, std::int32_t>(8, 16, 0.57, 0.19, 0.19, 0.05, 1))));
    EXPECT_TRUE(identical(generate<double, std::int32_t>("rmat:scale=8,edge_factor=4,a=0.45,b=0.15,c=0.15,d=0.25,seed=3"),
                          M(generate_rmat<double, std::int32_t>(8, 4, 0.45, 0.15, 0.15, 0.25, 3))));
    EXPECT_TRUE(identical(generate<double, std::int32_t>("powerlaw:rows=500,per_row=6,exponent=2.5,seed=4"),
                          M(generate_powerlaw<double, std::int32_t>(500, 500, 6, 2.5, 4))));
    EXPECT_TRUE(
        identical(generate<double, std::int32_t>("powerlaw:n=500"), M(generate_powerlaw<double, std::int32_t>(500, 500, 16, 2.1, 1))));
    EXPECT_TRUE(identical(generate<double, std::int32_t>("banded:n=50,half_width=3"), M(generate_banded<double, std::int32_t>(50, 3, 1))));
    EXPECT_TRUE(identical(generate<double, std::int32_t>(" blockdiag : blocks = 4 , block = 6 , seed = 2 "),
                          M(generate_block_diagonal<double, std::int32_t>(4, 6, 2))));
}

TEST(Spec, GridKindsAndTheNShorthand) {
    using M = Csr<float, std::int64_t>;
    EXPECT_TRUE(identical(generate<float, std::int64_t>("laplace3d:n=5"),
                          M(generate_amg_matrix<float, std::int64_t>(AmgProblem::laplace3d, 5, 5, 5))));
    EXPECT_TRUE(identical(generate<float, std::int64_t>("brick3d:nz=3,n=4"),
                          M(generate_amg_matrix<float, std::int64_t>(AmgProblem::brick3d, 4, 4, 3))));
    EXPECT_TRUE(identical(generate<float, std::int64_t>("laplace3d:nx=2,ny=3,nz=4"),
                          M(generate_amg_matrix<float, std::int64_t>(AmgProblem::laplace3d, 2, 3, 4))));
    EXPECT_TRUE(identical(generate<float, std::int64_t>("bigstar2d:n=9"),
                          M(generate_amg_matrix<float, std::int64_t>(AmgProblem::bigstar2d, 9, 9, 1))));
    EXPECT_TRUE(identical(generate<float, std::int64_t>("elasticity3d:n=3"),
                          M(generate_amg_matrix<float, std::int64_t>(AmgProblem::elasticity3d, 3, 3, 3))));
    EXPECT_TRUE(is_amg_spec("laplace3d:n=5"));
    EXPECT_TRUE(is_amg_spec("elasticity3d"));
    EXPECT_FALSE(is_amg_spec("uniform:n=5"));
    EXPECT_FALSE(is_amg_spec(""));
}

TEST(Spec, AmgFromSpec) {
    const auto ops = amg_from_spec<double, std::int32_t>("bigstar2d:nx=8,ny=6");
    const auto direct = generate_amg<double, std::int32_t>(AmgProblem::bigstar2d, 8, 6, 1);
    EXPECT_TRUE(identical(ops.a, direct.a));
    EXPECT_TRUE(identical(ops.p, direct.p));
    EXPECT_TRUE(identical(ops.r, direct.r));
    try {
        amg_from_spec<double, std::int32_t>("uniform:n=10");
        ADD_FAILURE() << "no error for a non-AMG kind";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("'uniform' is not an AMG problem"), std::string::npos) << e.what();
    }
}

TEST(Spec, Errors) {
    expect_spec_error("", "no kind");
    expect_spec_error("lapalce3d:n=4", "unknown kind 'lapalce3d'");
    expect_spec_error("laplace3d:n=4,q=1", "unknown parameter 'q' for laplace3d (parameters: n, nx, ny, nz)");
    expect_spec_error("bigstar2d:n=4,nz=2", "unknown parameter 'nz'");
    expect_spec_error("laplace3d:seed=2,n=3", "unknown parameter 'seed'");
    expect_spec_error("laplace3d:n=4,n=5", "'n' is given twice");
    expect_spec_error("laplace3d:n", "'n' is not name=value");
    expect_spec_error("laplace3d:n=abc", "parameter 'n' = 'abc' is not a non-negative integer");
    expect_spec_error("laplace3d:n=-3", "'n' = '-3' is not a non-negative integer");
    expect_spec_error("laplace3d:n=4x", "'n' = '4x'");
    expect_spec_error("laplace3d:n=", "'n' = ''");
    expect_spec_error("laplace3d:nx=4,ny=4", "missing parameter 'nz' (or 'n')");
    expect_spec_error("laplace3d", "missing parameter 'nx'");
    expect_spec_error("uniform:cols=4", "missing parameter 'rows' (or 'n')");
    expect_spec_error("uniform:n=10,per_row=x", "'per_row' = 'x' is not a finite number");
    expect_spec_error("uniform:n=10,per_row=inf", "'per_row' = 'inf' is not a finite number");
    expect_spec_error("uniform:n=10,seed=-1", "'seed' = '-1'");
    expect_spec_error("uniform:n=10,per_row=20", "per_row = 20");
    expect_spec_error("rmat:edge_factor=2", "missing parameter 'scale'");
    expect_spec_error("rmat:scale=99", "'scale' = 99");
    expect_spec_error("rmat:scale=4,a=0.9", "sum to 1");
    expect_spec_error("banded:n=10", "missing parameter 'half_width'");
    expect_spec_error("blockdiag:blocks=3", "missing parameter 'block'");
    expect_spec_error("elasticity3d:n=1", "nx must be >= 2");
    // Messages quote the whole spec.
    expect_spec_error("banded:n=10,w=2", "generate: spec 'banded:n=10,w=2': unknown parameter 'w'");
}

// Sizes no host holds fail at once, before a pass over their rows (these ran for minutes).
TEST(Spec, ImpossibleSizesFailAtOnce) {
    for (const std::string spec : {"uniform:rows=1000000000000000000,per_row=0", "laplace3d:n=100000", "banded:n=1000000000000,half_width=1"}) {
        SCOPED_TRACE(spec);
        try {
            (void)generate<double, std::int64_t>(spec);
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory) << e.what();
            EXPECT_NE(std::string(e.what()).find("GB of row offsets, more than the host's"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace spk
