#pragma once
// Per-thread accumulators for one row of C in the numeric phase (second paper): an
// open-addressing hash map for sparse rows (sized from the row's exact count, so it stays
// small and in cache) and a dense array over all columns for rows that reach a large share of
// them. Both give the same output order for the same patterns, so recompute matches compute.
#include <bit>
#include <cstdint>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail::cpu {

template <class T, class I> class HashAccumulator {
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
    template <class Op> void add(I col, T product, I* cols, index_t& count) {
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
    std::vector<std::size_t> slot_of_; // table slot of each recorded column
    int shift_ = 63;
    std::size_t mask_ = 1;
};

// Dense accumulator: a value per column plus a bit per column saying "touched in this row"
// (the column-block bit masks of the second paper). The bits make the first touch a cheap L1
// test, and reading them back word by word yields the row's columns already sorted.
template <class T, class I> class DenseAccumulator {
public:
    void prepare(index_t cols) {
        if (values_.size() < static_cast<std::size_t>(cols)) {
            values_.resize(static_cast<std::size_t>(cols));
            touched_.assign(static_cast<std::size_t>((cols + 63) / 64), 0);
        }
    }
    template <class Op> void add(I col, T product) {
        std::uint64_t& word = touched_[static_cast<std::size_t>(col) >> 6];
        const std::uint64_t bit = std::uint64_t{1} << (col & 63);
        T& value = values_[static_cast<std::size_t>(col)];
        value = (word & bit) ? Op::add(value, product) : product;
        word |= bit;
    }
    // Calls emit(column, value) for each touched column of the first `cols` columns, in
    // increasing order, and clears the marks for the next row.
    template <class F> void drain(index_t cols, F&& emit) {
        const std::size_t words = static_cast<std::size_t>((cols + 63) / 64);
        for (std::size_t w = 0; w < words; ++w) {
            std::uint64_t bits = touched_[w];
            if (bits == 0) continue;
            touched_[w] = 0;
            do {
                const std::size_t col = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
                emit(static_cast<I>(col), values_[col]);
                bits &= bits - 1;
            } while (bits != 0);
        }
    }

private:
    std::vector<T> values_;
    std::vector<std::uint64_t> touched_;
};

// Marks the columns of one mask row; a column is allowed when marked != complement.
class MaskRow {
public:
    void prepare(index_t cols) {
        if (row_of_.size() < static_cast<std::size_t>(cols)) row_of_.assign(static_cast<std::size_t>(cols), -1);
    }
    template <class V, class I> void mark(CsrView<const V, I> mask, index_t row) {
        for (index_t q = mask.row_ptr[row]; q < mask.row_ptr[row + 1]; ++q) row_of_[static_cast<std::size_t>(mask.col_idx[q])] = row;
    }
    bool marked(index_t col, index_t row) const { return row_of_[static_cast<std::size_t>(col)] == row; }

private:
    std::vector<index_t> row_of_;
};

} // namespace spk::detail::cpu
