#pragma once
// Per-thread accumulators for one row of C in the numeric phase (second paper): vector registers
// for tiny rows, an open-addressing hash map for sparse rows (sized from the row's exact count,
// so it stays small and in cache) and a dense array over all columns for rows that reach a large
// share of them. Each gives the same output order for the same patterns, so recompute matches
// compute.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail::cpu {

template <class T, class I>
class HashAccumulator {
public:
    // Makes room for a row of `entries` distinct columns (load factor <= 1/2); table is empty.
    void prepare(index_t entries) {
        int bits = 1;
        while ((index_t{1} << bits) < 2 * entries) ++bits;
        shift_ = 64 - bits;
        mask_ = (std::size_t{1} << bits) - 1;
        if (table_.size() <= mask_) table_.assign(mask_ + 1, Slot{I(-1), T{}});
        if (slot_of_.size() < static_cast<std::size_t>(entries)) slot_of_.resize(static_cast<std::size_t>(entries));
    }
    // Adds a product into column `col`; a new column is appended to cols[count++].
    template <class Op>
    void add(I col, T product, I* cols, index_t& count) {
        std::size_t s = home(col);
        for (;;) {
            Slot& slot = table_[s];
            if (slot.key == col) {
                slot.value = Op::add(slot.value, product);
                return;
            }
            if (slot.key == I(-1)) {
                slot = {col, product};
                slot_of_[static_cast<std::size_t>(count)] = s;
                cols[count++] = col;
                return;
            }
            s = (s + 1) & mask_;
        }
    }
    // The value of the column recorded at position `pos` (first-touch order).
    T value_at(index_t pos) const { return table_[slot_of_[static_cast<std::size_t>(pos)]].value; }
    T value_of(I col) const {
        std::size_t s = home(col);
        while (table_[s].key != col) s = (s + 1) & mask_;
        return table_[s].value;
    }
    // Empties the table after a row of `count` columns.
    void clear(index_t count) {
        for (index_t p = 0; p < count; ++p) table_[slot_of_[static_cast<std::size_t>(p)]].key = I(-1);
    }

private:
    struct Slot {
        I key;
        T value;
    };
    // Fibonacci hashing: the high bits of a multiplicative hash spread strided columns (stencils).
    std::size_t home(I col) const { return static_cast<std::size_t>((static_cast<std::uint64_t>(col) * 0x9E3779B97F4A7C15ull) >> shift_); }

    std::vector<Slot> table_;
    std::vector<std::size_t> slot_of_;  // table slot of each recorded column
    int shift_ = 63;
    std::size_t mask_ = 1;
};

// Dense accumulator: a value per column plus a bit per column saying "touched in this row"
// (the column-block bit masks of the second paper). The bits make the first touch a cheap L1
// test, and reading them back word by word yields the row's columns already sorted.
// Rows are drained without a data-dependent branch per word or per column (a row touches an
// unpredictable subset of the words, so such branches mispredict about half the time): the
// touched words are listed branch-free first, then each word's columns are written four at a
// time. Semirings whose sum may start from 0 find every value reset to 0 by the drain, so adding
// a product needs no first-touch test either.
template <class T, class I>
class DenseAccumulator {
public:
    void prepare(index_t cols) {
        if (values_.size() < static_cast<std::size_t>(cols)) {
            const std::size_t words = static_cast<std::size_t>((cols + 63) / 64);
            values_.assign(static_cast<std::size_t>(cols), T(0));
            touched_.assign(words, 0);
            touched_words_.resize(words + 4);  // list_touched_words writes 4 at a time
        }
    }
    template <class Op>
    void add(I col, T product) {
        std::uint64_t& word = touched_[static_cast<std::size_t>(col) >> 6];
        const std::uint64_t bit = std::uint64_t{1} << (col & 63);
        T& value = values_[static_cast<std::size_t>(col)];
        if constexpr (Op::kZeroIsIdentity)
            value = Op::add(value, product);
        else
            value = (word & bit) ? Op::add(value, product) : product;
        word |= bit;
    }
    // Writes the row's `len` touched columns among the first `cols` to out_cols in increasing
    // order, calls store(position, value) for each, and clears the row for the next one.
    template <class Op, class F>
    void drain(index_t cols, index_t len, I* out_cols, F&& store) {
        const std::size_t words = static_cast<std::size_t>((cols + 63) / 64);
        std::uint64_t* const touched = touched_.data();
        std::uint32_t* const listed = touched_words_.data();
        const std::size_t n = list_touched_words(words, listed);
        index_t q = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t w = listed[k];
            std::uint64_t bits = touched[w];
            touched[w] = 0;
            const int count = std::popcount(bits);
            I* out = out_cols + q;
            const auto next_column = [&] {
                const I col = static_cast<I>(w * 64 + _tzcnt_u64(bits));  // 64 for no bit: no branch, unlike countr_zero
                bits &= bits - 1;
                return col;
            };
            int r = 0;
            if (q + 2 <= len) {  // room for two writes, the second maybe past this word's last column
                out[0] = next_column();
                out[1] = next_column();
                r = 2;
            }
            for (; r < count; ++r) out[r] = next_column();
            q += count;
        }
        for (index_t e = 0; e < q; ++e) {
            T& value = values_[static_cast<std::size_t>(out_cols[e])];
            store(e, value);
            if constexpr (Op::kZeroIsIdentity) value = T(0);
        }
    }

private:
    // Positions of the set bits of each 4-bit mask, in increasing order (padded with 0).
    static constexpr std::array<std::array<std::uint32_t, 4>, 16> kSetBits = [] {
        std::array<std::array<std::uint32_t, 4>, 16> t{};
        for (std::uint32_t m = 0; m < 16; ++m) {
            std::uint32_t k = 0;
            for (std::uint32_t b = 0; b < 4; ++b)
                if (m >> b & 1) t[m][k++] = b;
        }
        return t;
    }();

    // Writes the indices of the non-zero words among the first `words` to listed, in increasing
    // order, and returns their count: four words per step, an AVX2 compare and a table lookup.
    std::size_t list_touched_words(std::size_t words, std::uint32_t* listed) const {
        const std::uint64_t* const touched = touched_.data();
        const __m256i zero = _mm256_setzero_si256();
        std::size_t n = 0, w = 0;
        for (; w + 4 <= words; w += 4) {
            const __m256i group = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(touched + w));
            const int empty = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(group, zero)));
            const int mask = ~empty & 15;
            const __m128i set = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSetBits[static_cast<std::size_t>(mask)].data()));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(listed + n), _mm_add_epi32(set, _mm_set1_epi32(static_cast<int>(w))));
            n += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(mask)));
        }
        for (; w < words; ++w) {
            listed[n] = static_cast<std::uint32_t>(w);
            n += touched[w] != 0;
        }
        return n;
    }

    std::vector<T> values_;
    std::vector<std::uint64_t> touched_;
    std::vector<std::uint32_t> touched_words_;  // the row's touched words, in order (drain)
};

// AVX2 operations on a vector of column indices: 8 lanes of 32 bits or 4 lanes of 64 bits.
template <class I>
struct IndexLanes {
    static constexpr int kLanes = 32 / static_cast<int>(sizeof(I));
    static __m256i broadcast(index_t x) {
        if constexpr (sizeof(I) == 4)
            return _mm256_set1_epi32(static_cast<int>(x));
        else
            return _mm256_set1_epi64x(static_cast<long long>(x));
    }
    static __m256i lane_numbers() {
        if constexpr (sizeof(I) == 4)
            return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        else
            return _mm256_setr_epi64x(0, 1, 2, 3);
    }
    static __m256i equal(__m256i a, __m256i b) {
        if constexpr (sizeof(I) == 4)
            return _mm256_cmpeq_epi32(a, b);
        else
            return _mm256_cmpeq_epi64(a, b);
    }
    static __m256i greater(__m256i a, __m256i b) {
        if constexpr (sizeof(I) == 4)
            return _mm256_cmpgt_epi32(a, b);
        else
            return _mm256_cmpgt_epi64(a, b);
    }
    static std::uint32_t bits(__m256i m) {
        if constexpr (sizeof(I) == 4)
            return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(m)));
        else
            return static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(m)));
    }
};

// Accumulator for a row of C with at most N entries (N <= 32): its columns in a few vector
// registers, searched for each product with vector compares, and sorted at the end by rank (an
// entry's position is the number of smaller columns). Neither step branches on the data: in
// short rows whether a product hits a new column is a coin toss, and hash probing or insertion
// sorting mispredicted about once per product. A new column is blended into its register, not
// stored to memory: the next product's vector load would wait for that store. Unused lanes hold
// the largest index, which no column equals and none exceeds.
template <class Op, class T, class I, int N>
class ShortRowAccumulator {
    using L = IndexLanes<I>;
    static constexpr int kVectors = N / L::kLanes;
    static_assert(N % L::kLanes == 0 && N <= 32);

public:
    static constexpr index_t kCapacity = N;

    ShortRowAccumulator() {
        for (__m256i& v : cols_) v = L::broadcast(std::numeric_limits<I>::max());
        if constexpr (Op::kZeroIsIdentity) std::fill(acc_, acc_ + N, T(0));
    }
    void add(I col, T product) {
        const __m256i probe = L::broadcast(col);
        const std::uint32_t match = lanes(probe, /*less=*/false);
        const index_t pos = match != 0 ? static_cast<index_t>(_tzcnt_u32(match)) : count_;
        if constexpr (Op::kZeroIsIdentity)
            acc_[pos] = Op::add(acc_[pos], product);
        else
            acc_[pos] = match != 0 ? Op::add(acc_[pos], product) : product;
        for (int v = 0; v < kVectors; ++v) {
            const __m256i here = L::equal(L::lane_numbers(), L::broadcast(pos - v * L::kLanes));
            cols_[v] = _mm256_blendv_epi8(cols_[v], probe, here);
        }
        count_ += match == 0;
    }
    // Writes the row's columns to out_cols (sorted by column if `sorted`, else in first-touch
    // order) and calls store(position, value) for each.
    template <class F>
    void write(bool sorted, I* out_cols, F&& store) const {
        alignas(32) I cols[N];
        for (int v = 0; v < kVectors; ++v) _mm256_store_si256(reinterpret_cast<__m256i*>(cols + v * L::kLanes), cols_[v]);
        for (index_t e = 0; e < count_; ++e) {
            const index_t q = sorted ? std::popcount(lanes(L::broadcast(cols[e]), /*less=*/true)) : e;
            out_cols[q] = cols[e];
            store(q, acc_[e]);
        }
    }

private:
    // Bit k set where column k equals the probe (or is less than it).
    std::uint32_t lanes(__m256i probe, bool less) const {
        std::uint32_t mask = 0;
        for (int v = 0; v < kVectors; ++v)
            mask |= L::bits(less ? L::greater(probe, cols_[v]) : L::equal(probe, cols_[v])) << (v * L::kLanes);
        return mask;
    }

    __m256i cols_[kVectors];
    T acc_[N];
    index_t count_ = 0;
};

// Marks the columns of one mask row; a column is allowed when marked != complement.
class MaskRow {
public:
    void prepare(index_t cols) {
        if (row_of_.size() < static_cast<std::size_t>(cols)) row_of_.assign(static_cast<std::size_t>(cols), -1);
    }
    template <class V, class I>
    void mark(CsrView<const V, I> mask, index_t row) {
        for (index_t q = mask.row_ptr[row]; q < mask.row_ptr[row + 1]; ++q) row_of_[static_cast<std::size_t>(mask.col_idx[q])] = row;
    }
    bool marked(index_t col, index_t row) const { return row_of_[static_cast<std::size_t>(col)] == row; }

private:
    std::vector<index_t> row_of_;
};

}  // namespace spk::detail::cpu
