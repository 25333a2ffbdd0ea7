#pragma once
// Helpers shared by the SpGEMM tests: a dense brute-force oracle, CSR contents as an ordered
// map for comparisons, and small builders.
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace spk::test {

using Entries = std::map<std::pair<index_t, index_t>, double>;

inline const std::vector<Semiring>& all_semirings() {
    static const std::vector<Semiring> s{Semiring::plus_times, Semiring::plus_pair, Semiring::min_plus, Semiring::max_times,
                                         Semiring::lor_land};
    return s;
}

enum class MaskMode { none, mask, complement };
inline std::string to_string(MaskMode m) { return m == MaskMode::none ? "none" : m == MaskMode::mask ? "mask" : "complement"; }

// A mask that overlaps the product: C's pattern with every third entry left out, so that C<M>
// and C<!M> are both non-trivial.
template <class V, class I>
Csr<V, I> mask_overlapping_product(const Csr<V, I>& a, const Csr<V, I>& b) {
    const auto c = spgemm(Executor::cpu(), a.view(), b.view());
    std::vector<I> ptr{0}, col;
    index_t q = 0;
    for (index_t i = 0; i < c.rows(); ++i) {
        for (; q < static_cast<index_t>(c.row_ptr()[i + 1]); ++q)
            if (q % 3 != 0) col.push_back(c.col_idx()[q]);
        ptr.push_back(static_cast<I>(col.size()));
    }
    return Csr<V, I>(Executor::cpu(), c.rows(), c.cols(), ptr, col, std::vector<V>(col.size(), V(1)));
}

// C's entries; fails the test on a repeated column or, when `sorted`, an unsorted row.
template <class V, class I>
Entries entries_of(const Csr<V, I>& c, bool sorted) {
    Entries out;
    const auto ptr = c.row_ptr().to_vector();
    const auto col = c.col_idx().to_vector();
    const auto val = c.values().to_vector();
    EXPECT_EQ(ptr.size(), static_cast<std::size_t>(c.rows() + 1));
    EXPECT_EQ(ptr.front(), 0);
    EXPECT_EQ(static_cast<index_t>(ptr.back()), c.nnz());
    for (index_t i = 0; i < c.rows(); ++i)
        for (index_t q = ptr[i]; q < ptr[i + 1]; ++q) {
            if (sorted && q > ptr[i]) {
                EXPECT_LT(col[q - 1], col[q]) << "row " << i << " is not sorted";
            }
            EXPECT_TRUE(col[q] >= 0 && col[q] < c.cols()) << "row " << i << " column " << col[q];
            const bool fresh = out.emplace(std::make_pair(i, static_cast<index_t>(col[q])), value_cast<double>(val[q])).second;
            EXPECT_TRUE(fresh) << "repeated column " << col[q] << " in row " << i;
        }
    return out;
}

// Products of the dense triple loop over i, j, k, under the semiring, inside the mask.
template <class V, class I>
Entries dense_oracle(const Csr<V, I>& a, const Csr<V, I>& b, Semiring s, MaskMode mode, const Csr<V, I>* mask) {
    const Entries ea = entries_of(a, false), eb = entries_of(b, false);
    std::set<std::pair<index_t, index_t>> in_mask;
    if (mask)
        for (const auto& [ij, v] : entries_of(*mask, false)) in_mask.insert(ij);
    const auto value = [](const Entries& e, index_t i, index_t j) -> std::optional<double> {
        const auto it = e.find({i, j});
        return it == e.end() ? std::nullopt : std::optional<double>(it->second);
    };
    Entries out;
    for (index_t i = 0; i < a.rows(); ++i)
        for (index_t j = 0; j < b.cols(); ++j) {
            if (mode != MaskMode::none && (in_mask.count({i, j}) != 0) != (mode == MaskMode::mask)) continue;
            std::optional<double> acc;
            for (index_t k = 0; k < a.cols(); ++k) {
                const auto x = value(ea, i, k), y = value(eb, k, j);
                if (!x || !y) continue;
                double prod = 0, sum = 0;
                switch (s) {
                    case Semiring::plus_times:
                        prod = *x * *y;
                        sum = acc ? *acc + prod : prod;
                        break;
                    case Semiring::plus_pair:
                        prod = 1;
                        sum = acc ? *acc + 1 : 1;
                        break;
                    case Semiring::min_plus:
                        prod = *x + *y;
                        sum = acc ? std::min(*acc, prod) : prod;
                        break;
                    case Semiring::max_times:
                        prod = *x * *y;
                        sum = acc ? std::max(*acc, prod) : prod;
                        break;
                    case Semiring::lor_land:
                        prod = (*x != 0 && *y != 0) ? 1 : 0;
                        sum = acc ? std::max(*acc, prod) : prod;
                        break;
                }
                acc = sum;
            }
            if (acc) out[{i, j}] = *acc;
        }
    return out;
}

// Same keys, values within atol + rtol |expected|.
inline ::testing::AssertionResult same_entries(const Entries& actual, const Entries& expected, double rtol, double atol = 1e-12) {
    if (actual.size() != expected.size()) return ::testing::AssertionFailure() << actual.size() << " entries, expected " << expected.size();
    auto e = expected.begin();
    for (const auto& [ij, v] : actual) {
        if (ij != e->first)
            return ::testing::AssertionFailure() << "entry (" << ij.first << ", " << ij.second << ") where (" << e->first.first << ", "
                                                 << e->first.second << ") was expected";
        if (!(std::abs(v - e->second) <= atol + rtol * std::abs(e->second)))
            return ::testing::AssertionFailure() << "at (" << ij.first << ", " << ij.second << "): " << v << " vs expected " << e->second;
        ++e;
    }
    return ::testing::AssertionSuccess();
}

// A random CSR whose every 7th value is an explicit zero (lor_land and cancellation cases).
template <class V, class I>
Csr<V, I> random_with_zeros(index_t rows, index_t cols, double per_row, std::uint64_t seed) {
    Csr<V, I> m = random_csr<V, I>(rows, cols, per_row, seed);
    for (index_t q = 0; q < m.nnz(); q += 7) m.values()[q] = value_cast<V>(0.0);
    return m;
}

// The same matrix with each row's entries shuffled, marked unsorted.
template <class V, class I>
Csr<V, I> shuffled_rows(const Csr<V, I>& m, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto ptr = m.row_ptr().to_vector();
    auto col = m.col_idx().to_vector();
    auto val = m.values().to_vector();
    for (index_t i = 0; i < m.rows(); ++i)
        for (index_t q = ptr[i + 1] - 1; q > ptr[i]; --q) {
            const index_t r = ptr[i] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(q - ptr[i] + 1));
            std::swap(col[q], col[r]);
            std::swap(val[q], val[r]);
        }
    return Csr<V, I>(Executor::cpu(), m.rows(), m.cols(), ptr, col, val, false);
}

}  // namespace spk::test
