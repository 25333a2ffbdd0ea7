// Banded and block-diagonal matrices: every row is one contiguous run of columns, symmetric
// random off-diagonals and a dominant diagonal, so the matrix is SPD (a sensible operand for
// solvers, not just a pattern).
#include <cmath>
#include <limits>
#include <string>

#include "core/instantiate.hpp"
#include "generate/counter_rng.hpp"
#include "generate/csr_builder.hpp"
#include "spk/error.hpp"
#include "spk/generate.hpp"

namespace spk {

namespace {

// Row i over columns [first, last]: a(i, j) = a(j, i) uniform in (-1, 1] for j != i (the value
// keyed by the unordered pair), a(i, i) = 1 + sum of |a(i, j)|.
template <class V, class I>
void fill_dominant_row(std::uint64_t seed, index_t i, index_t first, index_t last, I* c, V* v) {
    double off_sum = 0;
    index_t diag = -1;
    for (index_t j = first, k = 0; j <= last; ++j, ++k) {
        c[k] = static_cast<I>(j);
        if (j == i) {
            diag = k;
            continue;
        }
        const double x = 2.0 * detail::entry_value(seed, std::min(i, j), std::max(i, j)) - 1.0;
        off_sum += std::abs(x);
        v[k] = value_cast<V>(x);
    }
    v[diag] = value_cast<V>(1.0 + off_sum);
}

}  // namespace

template <class V, class I>
Csr<V, I> generate_banded(index_t n, index_t half_width, std::uint64_t seed) {
    if (n < 0) invalid_argument("generate_banded: n must be >= 0, got " + std::to_string(n));
    if (half_width < 0) invalid_argument("generate_banded: half_width must be >= 0, got " + std::to_string(half_width));
    const index_t w = std::min(half_width, std::max<index_t>(n - 1, 0));  // a wider band changes nothing
    auto first = [=](index_t i) { return std::max<index_t>(0, i - w); };
    auto last = [=](index_t i) { return std::min(n - 1, i + w); };
    return detail::build_csr_by_rows<V, I>(
        "generate_banded", n, n, [&](index_t i) { return last(i) - first(i) + 1; },
        [&](index_t i, I* c, V* v) { fill_dominant_row(seed, i, first(i), last(i), c, v); });
}

template <class V, class I>
Csr<V, I> generate_block_diagonal(index_t blocks, index_t block_size, std::uint64_t seed) {
    if (blocks < 0) invalid_argument("generate_block_diagonal: blocks must be >= 0, got " + std::to_string(blocks));
    if (block_size < 0) invalid_argument("generate_block_diagonal: block_size must be >= 0, got " + std::to_string(block_size));
    if (block_size > 0 && blocks > std::numeric_limits<index_t>::max() / block_size)
        invalid_argument("generate_block_diagonal: blocks * block_size = " + std::to_string(blocks) + " * " + std::to_string(block_size) +
                         " overflows");
    const index_t n = blocks * block_size;
    auto first = [=](index_t i) { return i / block_size * block_size; };
    return detail::build_csr_by_rows<V, I>(
        "generate_block_diagonal", n, n, [&](index_t) { return block_size; },
        [&](index_t i, I* c, V* v) { fill_dominant_row(seed, i, first(i), first(i) + block_size - 1, c, v); });
}

#define SPK_INSTANTIATE(V, I)                                                  \
    template Csr<V, I> generate_banded<V, I>(index_t, index_t, std::uint64_t); \
    template Csr<V, I> generate_block_diagonal<V, I>(index_t, index_t, std::uint64_t);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
