// CSF construction: exact arrays on a small tensor, round trips in every mode order, duplicates,
// bad input.
#include <map>
#include <tuple>

#include "ops/tensor_test_inputs.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

template <class I>
std::vector<I> host(const Array<I>& a) {
    return a.to_vector();
}

CooTensor3<double, std::int32_t> small_tensor() {
    CooTensor3<double, std::int32_t> x;
    x.dims = {3, 4, 2};
    push_entry(x, 2, 1, 0, 5.0);
    push_entry(x, 0, 3, 1, 1.0);
    push_entry(x, 0, 0, 1, 2.0);
    push_entry(x, 0, 3, 0, 3.0);
    push_entry(x, 2, 1, 0, 7.0);  // repeats the first entry
    return x;
}

TEST(Csf, KnownArraysInTwoOrders) {
    const auto x = small_tensor();
    const Csf<double, std::int32_t> a = to_csf(x, {0, 1, 2});
    EXPECT_EQ(a.dims(), (std::array<index_t, 3>{3, 4, 2}));
    EXPECT_EQ(a.nnz(), 4);
    EXPECT_EQ(host(a.slice_ids()), (std::vector<std::int32_t>{0, 2}));
    EXPECT_EQ(host(a.slice_ptr()), (std::vector<std::int32_t>{0, 2, 3}));
    EXPECT_EQ(host(a.fiber_ids()), (std::vector<std::int32_t>{0, 3, 1}));
    EXPECT_EQ(host(a.fiber_ptr()), (std::vector<std::int32_t>{0, 1, 3, 4}));
    EXPECT_EQ(host(a.leaf_ids()), (std::vector<std::int32_t>{1, 0, 1, 0}));
    EXPECT_EQ(host(a.values()), (std::vector<double>{2, 3, 1, 12}));

    const Csf<double, std::int32_t> b = to_csf(x, {2, 0, 1});
    EXPECT_EQ(b.order(), (std::array<int, 3>{2, 0, 1}));
    EXPECT_EQ(host(b.slice_ids()), (std::vector<std::int32_t>{0, 1}));
    EXPECT_EQ(host(b.slice_ptr()), (std::vector<std::int32_t>{0, 2, 3}));
    EXPECT_EQ(host(b.fiber_ids()), (std::vector<std::int32_t>{0, 2, 0}));
    EXPECT_EQ(host(b.fiber_ptr()), (std::vector<std::int32_t>{0, 1, 2, 4}));
    EXPECT_EQ(host(b.leaf_ids()), (std::vector<std::int32_t>{3, 1, 0, 3}));
    EXPECT_EQ(host(b.values()), (std::vector<double>{3, 12, 2, 1}));
}

// Checks the CSF invariants and expands it back to coordinates -> value.
template <class V, class I>
std::map<std::array<index_t, 3>, double> expand(const Csf<V, I>& csf) {
    const auto v = csf.view();
    std::map<std::array<index_t, 3>, double> out;
    EXPECT_EQ(v.slice_ptr[0], 0);
    EXPECT_EQ(v.slice_ptr[v.slices], v.fibers);
    EXPECT_EQ(v.fiber_ptr[0], 0);
    EXPECT_EQ(v.fiber_ptr[v.fibers], v.nnz);
    for (index_t s = 0; s < v.slices; ++s) {
        if (s > 0) {
            EXPECT_LT(v.slice_ids[s - 1], v.slice_ids[s]);
        }
        EXPECT_LT(v.slice_ptr[s], v.slice_ptr[s + 1]) << "empty slice " << s;
        for (index_t f = v.slice_ptr[s]; f < v.slice_ptr[s + 1]; ++f) {
            if (f > v.slice_ptr[s]) {
                EXPECT_LT(v.fiber_ids[f - 1], v.fiber_ids[f]);
            }
            EXPECT_LT(v.fiber_ptr[f], v.fiber_ptr[f + 1]) << "empty fiber " << f;
            for (index_t p = v.fiber_ptr[f]; p < v.fiber_ptr[f + 1]; ++p) {
                if (p > v.fiber_ptr[f]) {
                    EXPECT_LT(v.leaf_ids[p - 1], v.leaf_ids[p]);
                }
                std::array<index_t, 3> c{};
                c[static_cast<std::size_t>(v.order[0])] = v.slice_ids[s];
                c[static_cast<std::size_t>(v.order[1])] = v.fiber_ids[f];
                c[static_cast<std::size_t>(v.order[2])] = v.leaf_ids[p];
                out[c] = static_cast<double>(v.values[p]);
            }
        }
    }
    return out;
}

template <class V, class I>
void expect_round_trips(const CooTensor3<V, I>& x) {
    std::map<std::array<index_t, 3>, double> expected;
    for (std::size_t p = 0; p < x.values.size(); ++p) expected[{x.idx[0][p], x.idx[1][p], x.idx[2][p]}] += static_cast<double>(x.values[p]);
    const std::array<std::array<int, 3>, 6> orders{{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
    for (const auto& order : orders) {
        SCOPED_TRACE("order " + std::to_string(order[0]) + std::to_string(order[1]) + std::to_string(order[2]));
        const Csf<V, I> csf = to_csf(x, order);
        EXPECT_EQ(csf.nnz(), static_cast<index_t>(expected.size()));
        const auto got = expand(csf);
        ASSERT_EQ(got.size(), expected.size());
        for (const auto& [c, value] : expected) EXPECT_NEAR(got.at(c), value, 1e-5 * (1 + std::abs(value)));
    }
}

TEST(Csf, RoundTripsInEveryOrder) {
    const std::uint64_t s = seed("csf round trip");
    expect_round_trips(random_tensor<double, std::int32_t>({6, 9, 4}, 300, s));  // many repeats
    expect_round_trips(random_tensor<float, std::int64_t>({50, 3, 70}, 500, s + 1));
    expect_round_trips(skewed_tensor<double, std::int32_t>({20, 20, 20}, 400, 1, 7, 0.8, s + 2));
}

TEST(Csf, Int64CoordinatesBeyond32Bits) {
    CooTensor3<double, std::int64_t> x;
    x.dims = {6'000'000'000, 2, 5'000'000'000};
    push_entry(x, 5'999'999'999, 1, 4'000'000'000, 1.5);
    push_entry(x, 3'000'000'000, 0, 7, 2.5);
    const auto csf = to_csf(x, {2, 0, 1});
    EXPECT_EQ(host(csf.slice_ids()), (std::vector<std::int64_t>{7, 4'000'000'000}));
    EXPECT_EQ(host(csf.fiber_ids()), (std::vector<std::int64_t>{3'000'000'000, 5'999'999'999}));
    expect_round_trips(x);
}

TEST(Csf, EmptyTensorAndExplicitZeros) {
    CooTensor3<float, std::int32_t> x;
    x.dims = {4, 0, 2};
    const auto empty = to_csf(x, {1, 0, 2});
    EXPECT_EQ(empty.slices(), 0);
    EXPECT_EQ(empty.fibers(), 0);
    EXPECT_EQ(empty.nnz(), 0);
    EXPECT_EQ(host(empty.slice_ptr()), (std::vector<std::int32_t>{0}));
    EXPECT_EQ(host(empty.fiber_ptr()), (std::vector<std::int32_t>{0}));
    x.dims = {4, 3, 2};
    push_entry(x, 1, 2, 1, 0.0);
    EXPECT_EQ(to_csf(x, {0, 1, 2}).nnz(), 1);  // a stored zero stays stored
}

TEST(Csf, CopyKeepsEverything) {
    const auto a = to_csf(small_tensor(), {1, 2, 0});
    const auto b = a.to(Executor::cpu());
    EXPECT_EQ(b.order(), a.order());
    EXPECT_EQ(host(b.fiber_ptr()), host(a.fiber_ptr()));
    EXPECT_EQ(host(b.values()), host(a.values()));
    EXPECT_EQ(expand(b), expand(a));
}

template <class F>
void expect_invalid(F&& call, const std::vector<std::string>& words) {
    try {
        call();
        ADD_FAILURE() << "no error thrown";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
        for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << "'" << w << "' not in: " << e.what();
    }
}

TEST(Csf, BadInputIsRejectedWithItsName) {
    const auto x = small_tensor();
    expect_invalid([&] { to_csf(x, {0, 1, 2}, Duplicates::reject); }, {"entries 0 and 4", "(2, 1, 0)"});
    expect_invalid([&] { to_csf(x, {0, 0, 1}); }, {"order (0, 0, 1)", "permutation"});
    expect_invalid([&] { to_csf(x, {0, 1, 3}); }, {"permutation"});
    auto outside = x;
    outside.idx[2][3] = 2;
    expect_invalid([&] { to_csf(outside, {0, 1, 2}); }, {"entry 3", "(0, 3, 2)", "mode 2", "0..1"});
    auto negative = x;
    negative.idx[0][1] = -1;
    expect_invalid([&] { to_csf(negative, {0, 1, 2}); }, {"entry 1", "index -1 of mode 0"});
    auto bad_dims = x;
    bad_dims.dims[1] = -4;
    expect_invalid([&] { to_csf(bad_dims, {0, 1, 2}); }, {"dims[1]", "negative"});
    auto short_values = x;
    short_values.values.pop_back();
    expect_invalid([&] { to_csf(short_values, {0, 1, 2}); }, {"idx[0]", "5 entries", "4 values"});
}

}  // namespace
}  // namespace spk::test
