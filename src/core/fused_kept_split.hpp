#pragma once
// What a FusedPlan keeps of its CUDA forward pass's long-row search (src/cuda/fusedmm/fusedmm.cu,
// prepare_split). The search reads counts back from the device, a wait that costs more than the
// whole pass on small graphs (H200, karate with one head: 26 us a forward against 15 us for
// cuSPARSE's unfused pipeline). A's pattern does not change over a plan's life, so the first
// pass's result serves every later one with the same chunk state sizes. The backward pass's
// search (A's rows and columns) is kept the same way.
#include <array>
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "cuda/common/workspace.hpp"

namespace spk::detail {

struct KeptSplit {
    long long threshold = 0, segments = 0, chunks = 0;  // segments == 0: no row is long, nothing split
    // From the stream-ordered pool, like a pass's workspaces (a plan made for one call, as the
    // Python binding's are, allocates and frees them without a device-wide wait).
    cuda::Workspace<unsigned long long> counts;         // find_long_rows' packed count of long rows and chunks
    cuda::Workspace<std::byte> lists;                   // the long rows' and chunks' lists
    std::array<std::size_t, 5> offsets{};               // of long_rows, chunk_first, chunk_row, chunk_part, team_rows in lists
    long long team_threshold = 0, team_count = 0;       // the forward's team rows (team_count == 0: none)
};

// Kept searches by the bytes of a chunk's state (heads x values a head), which the threshold
// depends on: the forward's of A's rows; the backward's of A's rows and of its columns (-1: that
// side not searched, as when its gradients are not asked for). Entries are never replaced: a
// pass on another thread may still read one.
struct FusedSplitCache {
    std::mutex mutex;
    std::map<std::pair<long long, long long>, KeptSplit> forward;  // by (state bytes, team rows wanted from)
    std::map<std::pair<long long, long long>, std::array<KeptSplit, 2>> backward;
};

}  // namespace spk::detail
