// spk/names.hpp: every option enum's names read back to the same value.
#include "spk/names.hpp"

#include <gtest/gtest.h>

#include "spk/fusedmm.hpp"
#include "spk/spgemm.hpp"
#include "spk/spmm.hpp"

namespace spk {
namespace {

template <class E, std::size_t N>
void expect_round_trip(const E (&all)[N]) {
    for (const E e : all) {
        const auto back = from_string(to_string(e), all);
        ASSERT_TRUE(back.has_value()) << to_string(e);
        EXPECT_EQ(*back, e) << to_string(e);
    }
}

TEST(Names, EveryValueReadsBackFromItsName) {
    expect_round_trip(all_reduces);
    expect_round_trip(all_semirings);
    expect_round_trip(all_scores);
    expect_round_trip(all_normalizations);
    expect_round_trip(all_aggregations);
    expect_round_trip(all_edge_kinds);
}

TEST(Names, UnknownNamesAreNotValues) {
    EXPECT_FALSE(from_string("median", all_reduces).has_value());
    EXPECT_FALSE(from_string("", all_semirings).has_value());
    EXPECT_FALSE(from_string("Sum", all_reduces).has_value());  // names are case-sensitive
}

TEST(Names, ListsEveryName) {
    EXPECT_EQ(names_of(all_reduces), "sum, mean, max, min");
    EXPECT_EQ(names_of(all_semirings), "plus_times, plus_pair, min_plus, max_times, lor_land");
    EXPECT_EQ(names_of(all_normalizations), "none, softmax");
    EXPECT_EQ(names_of(all_edge_kinds), "identity, sigmoid, exp, leaky_relu, tanh, scale");
}

TEST(Names, AnEdgeNamesItsParameterOnlyWhenItTakesOne) {
    EXPECT_EQ(to_string(Edge::leaky_relu(0.2f)), "leaky_relu(0.2)");
    EXPECT_EQ(to_string(Edge::scale(-1.5f)), "scale(-1.5)");
    EXPECT_EQ(to_string(Edge::sigmoid()), "sigmoid");
    EXPECT_EQ(to_string(Edge{Edge::Kind::tanh, 3.0f}), "tanh");
}

}  // namespace
}  // namespace spk
