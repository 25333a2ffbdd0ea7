#pragma once
// B's rows with columns compressed into (block, bit mask) pairs, 64 columns a block (second
// paper, symbolic phase): unions of rows become bitwise ORs and the symbolic phase touches one
// pair where it would touch up to 64 columns (a large saving on banded and mesh matrices).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail::cpu {

template <class I>
struct CompressedRows {
    std::vector<index_t> ptr;         // rows + 1
    std::vector<I> block;             // column / 64, unique and increasing within a row
    std::vector<std::uint64_t> bits;  // bit (column % 64) set for each column present
};

namespace compressed_detail {
// Visits the (block, bits) pairs of one row in increasing block order. Unsorted rows (possibly
// with repeated columns) are sorted into `scratch` first.
template <class V, class I, class F>
void for_each_block(CsrView<const V, I> m, index_t row, std::vector<I>& scratch, F&& visit) {
    const I* first = m.col_idx + m.row_ptr[row];
    const I* last = m.col_idx + m.row_ptr[row + 1];
    if (first == last) return;
    if (!m.sorted) {
        scratch.assign(first, last);
        std::sort(scratch.begin(), scratch.end());
        first = scratch.data();
        last = first + scratch.size();
    }
    I block = static_cast<I>(*first >> 6);
    std::uint64_t bits = 0;
    for (const I* c = first; c != last; ++c) {
        const I b = static_cast<I>(*c >> 6);
        if (b != block) {
            visit(block, bits);
            block = b;
            bits = 0;
        }
        bits |= std::uint64_t{1} << (*c & 63);
    }
    visit(block, bits);
}
}  // namespace compressed_detail

template <class V, class I>
CompressedRows<I> compress_rows(CsrView<const V, I> m, int threads) {
    CompressedRows<I> out;
    out.ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
#pragma omp parallel num_threads(threads)
    {
        std::vector<I> scratch;
#pragma omp for schedule(static, 512)
        for (index_t k = 0; k < m.rows; ++k) {
            index_t count = 0;
            compressed_detail::for_each_block(m, k, scratch, [&](I, std::uint64_t) { ++count; });
            out.ptr[k + 1] = count;
        }
#pragma omp single
        {
            for (index_t k = 0; k < m.rows; ++k) out.ptr[k + 1] += out.ptr[k];
            out.block.resize(static_cast<std::size_t>(out.ptr.back()));
            out.bits.resize(static_cast<std::size_t>(out.ptr.back()));
        }
#pragma omp for schedule(static, 512)
        for (index_t k = 0; k < m.rows; ++k) {
            index_t q = out.ptr[k];
            compressed_detail::for_each_block(m, k, scratch, [&](I block, std::uint64_t bits) {
                out.block[q] = block;
                out.bits[q] = bits;
                ++q;
            });
        }
    }
    return out;
}

}  // namespace spk::detail::cpu
