#pragma once
// Load balance for the CSF kernels on the cpu backend: the non-zeros are cut into chunks of
// (nearly) equal size, wherever the cuts fall, so that one slice or fiber holding most of the
// tensor is still shared by all threads. A segment (slice or fiber) cut by a chunk boundary
// leaves partial sums, which are added up once the parallel loop is done; every other segment
// is written by the one chunk that holds it whole, so no two threads write the same row.
#include <algorithm>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail {

struct NnzChunks {
    index_t nnz = 0, count = 0;
    // Enough chunks for dynamic scheduling to even out cache effects; one when serial.
    NnzChunks(index_t nnz_, int threads) : nnz(nnz_), count(std::min<index_t>(nnz_, threads <= 1 ? 1 : 4 * index_t{threads})) {}
    index_t begin(index_t c) const { return c * (nnz / count) + std::min(c, nnz % count); }
    index_t end(index_t c) const { return begin(c + 1); }
};

// The segment whose range [ptr[s], ptr[s + 1]) holds position p (segments are non-empty, so
// ptr is strictly increasing).
template <class I>
index_t segment_of(const I* ptr, index_t segments, index_t p) {
    return static_cast<index_t>(std::upper_bound(ptr, ptr + segments + 1, static_cast<I>(p)) - ptr) - 1;
}

// Up to two partial sums per chunk (its first and its last segment, when cut), each R long.
template <class A>
class PartialSums {
public:
    PartialSums(index_t chunks, index_t rank)
        : rank_(rank), segment_(static_cast<std::size_t>(2 * chunks), -1), sums_(static_cast<std::size_t>(2 * chunks * rank)) {}

    // Where chunk c keeps its partial sum of `segment`: the first slot for a segment that
    // started before the chunk, the second for one that continues after it.
    A* slot(index_t chunk, bool started_before, index_t segment) {
        const index_t k = 2 * chunk + (started_before ? 0 : 1);
        segment_[static_cast<std::size_t>(k)] = segment;
        return sums_.data() + k * rank_;
    }

    // Adds up each cut segment's partial sums (they sit in consecutive slots) and hands the
    // total to write(segment, const A* sum). Serial: at most two slots per chunk.
    template <class Write>
    void combine(Write write) {
        std::vector<A> total(static_cast<std::size_t>(rank_));
        const auto slots = static_cast<index_t>(segment_.size());
        for (index_t k = 0; k < slots;) {
            const index_t segment = segment_[static_cast<std::size_t>(k)];
            if (segment < 0) {
                ++k;
                continue;
            }
            std::fill(total.begin(), total.end(), A(0));
            for (; k < slots && (segment_[static_cast<std::size_t>(k)] == segment || segment_[static_cast<std::size_t>(k)] < 0); ++k) {
                if (segment_[static_cast<std::size_t>(k)] < 0) continue;
                const A* part = sums_.data() + k * rank_;
                for (index_t r = 0; r < rank_; ++r) total[static_cast<std::size_t>(r)] += part[r];
            }
            write(segment, total.data());
        }
    }

private:
    index_t rank_;
    std::vector<index_t> segment_;
    std::vector<A> sums_;
};

}  // namespace spk::detail
