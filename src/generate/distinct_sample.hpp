#pragma once
// Draws `count` distinct integers from [0, n), sorted, into out[0..count): the columns of one
// random row. A pure function of the random stream, so rows come out the same on any thread.
#include <algorithm>

#include "generate/counter_rng.hpp"

namespace spk::detail {

template <class I>
void sample_sorted_distinct(CounterRng& rng, index_t count, index_t n, I* out) {
    if (count <= 0) return;
    if (4 * count >= n) {
        // Dense row: selection sampling (Knuth's algorithm S) walks [0, n) once, in order,
        // taking each value with probability (still needed) / (still available).
        index_t needed = count;
        for (index_t c = 0; needed > 0; ++c)
            if (static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n - c))) < needed) out[count - needed--] = static_cast<I>(c);
        return;
    }
    // Sparse row: draw, sort, drop repeats, and redraw the shortfall (few rounds, since at
    // most a quarter of [0, n) is taken).
    index_t have = 0;
    while (have < count) {
        for (index_t k = have; k < count; ++k) out[k] = static_cast<I>(rng.below(static_cast<std::uint64_t>(n)));
        std::sort(out, out + count);
        have = std::unique(out, out + count) - out;
    }
}

}  // namespace spk::detail
