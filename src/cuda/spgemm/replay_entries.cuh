#pragma once
// Drivers of the numeric reuse by entries of C (replay_entries_kernels.cuh): order_products_by_entry
// at a plan's first recompute, once record_reuse_places has found each product's place;
// replay_by_entries at later ones.
#include <algorithm>
#include <cstdint>

#include "core/cuda_runtime.hpp"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/numeric_reuse.cuh"
#include "cuda/spgemm/prefix_sum.cuh"
#include "cuda/spgemm/replay_entries_kernels.cuh"

namespace spk::detail::cuda::spgemm {

// The bins whose rows the entries cover: all with shared-memory tables. The global bin's rows keep
// their 32-bit places (a row's products gathered a warp at a time would serialise on a long row).
inline constexpr int kEntryMaxBin = kGlobalBin - 1;

// SpgemmReuse::automatic keeps entries where the rows of B that A's entries reach hold at most this
// many entries on average, places where they are longer. Measured on the H200 (reuse, entries
// against places): uniform 1M x 16 squared (f64) 2.14 against 2.21 ms, Laplace 128^3 0.57 against
// 0.81, the f32 AMG products with P (rows of 3 to 27) 1.2-4.3x faster; elasticity 40^3 x 3 squared
// (rows of 77) 6.88 against 4.74 ms and its R·A 1.88 against 1.43: each product's value of B is a
// sector of its own, where the places' replay reads B's long rows whole.
inline constexpr double kEntriesMaxRowOfB = 32;

// Groups the products of the rows of bins 1 to kEntryMaxBin by their entry of C and keeps them in
// state.reuse (entry_records, entry_tile_start), dropping the places they replace. Returns false,
// keeping nothing new, where the records do not apply (index ranges, see SpgemmReuse::entries),
// would take more than a quarter of the device's memory, or (automatic) where the rows of B reached
// are long (kEntriesMaxRowOfB). Reads a few numbers back: waits for the work queued before it.
template <class V, class I>
bool order_products_by_entry(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, bool automatic) {
    auto& reuse = state.reuse;
    const long long entries = state.numeric.total_need, rows = p.a.rows;
    if (entries == 0 || p.a.nnz >= (1ll << 32) || p.b.nnz > (1ll << kEntryBBits)) return false;
    const long long placed = read_back(exec, reuse.entry_offset.data() + p.a.nnz, 1).front();
    if (placed >= (1ll << 31)) return false;
    const cudaStream_t stream = stream_of(exec);
    ReuseArgs<V, I> shape = reuse_args(p, state, reuse.cols.data(), static_cast<V*>(nullptr));
    shape.places = reuse.places.data();
    shape.entry_offset = reuse.entry_offset.data();
    constexpr int threads = 256;
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(grid_for(rows, threads / 32), 1ll << 20));

    Workspace<unsigned> cursor(exec, static_cast<std::size_t>(entries) + 1);  // each entry's next free position
    Workspace<unsigned long long> a_entries(exec, 1);
    {
        Workspace<unsigned> counts(exec, static_cast<std::size_t>(entries));
        SPK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, static_cast<std::size_t>(entries) * sizeof(unsigned), stream));
        SPK_CUDA_CHECK(cudaMemsetAsync(a_entries.data(), 0, sizeof(unsigned long long), stream));
        count_entry_products<V, I><<<blocks, threads, 0, stream>>>(shape, rows, kEntryMaxBin, counts.data(), a_entries.data());
        SPK_CUDA_CHECK_LAUNCH();
        prefix_sum(exec, counts.data(), entries, cursor.data());
    }
    const long long covered = read_back(exec, cursor.data() + entries, 1).front();
    if (covered == 0) return false;
    if (automatic) {  // the mean length of the rows of B that the covered entries of A reach
        const auto reached = static_cast<double>(read_back(exec, a_entries.data(), 1).front());
        if (static_cast<double>(covered) > kEntriesMaxRowOfB * reached) return false;
    }
    const double kept = static_cast<double>(covered) * sizeof(EntryRecord) + static_cast<double>(reuse.global_places.size()) * sizeof(global_place_t);
    if (kept > static_cast<double>(device_properties(exec.device()).global_bytes) / 4) return false;

    const long long tiles = (entries + kEntryTile - 1) / kEntryTile;
    Array<unsigned> tile_start(exec, static_cast<std::size_t>(tiles) + 1);
    entry_tile_starts<<<grid_for(tiles + 1, 256), 256, 0, stream>>>(cursor.data(), entries, tiles, tile_start.data());
    SPK_CUDA_CHECK_LAUNCH();
    Array<EntryRecord> records(exec, static_cast<std::size_t>(covered));
    place_entry_products<V, I><<<blocks, threads, 0, stream>>>(shape, rows, kEntryMaxBin, cursor.data(), records.data());
    SPK_CUDA_CHECK_LAUNCH();
    reuse.entry_records = std::move(records);
    reuse.entry_tile_start = std::move(tile_start);
    reuse.entry_max_bin = kEntryMaxBin;
    reuse.places = Array<place_t>();  // every row with these places is covered
    reuse.entry_offset = Array<long long>();
    return true;
}

// C's values of the covered rows from the records (every other entry of C is left as it is).
template <class Op, class V, class I>
void replay_by_entries(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, V* c_values) {
    const auto& reuse = state.reuse;
    const long long tiles = static_cast<long long>(reuse.entry_tile_start.size()) - 1;
    const EntryReplayArgs<V> args{reuse.entry_records.data(), reuse.entry_tile_start.data(), tiles, p.a.values, p.b.values, c_values};
    // Warps take tiles in a grid-stride walk (each fetches its next tile's products early): as
    // many blocks as stay resident.
    static const int resident = [] {
        int blocks = 0;
        SPK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, replay_entries<Op, V>, kEntryThreads, 0));
        return std::max(blocks, 1);
    }();
    constexpr int warps = kEntryThreads / 32;
    const long long blocks = std::min<long long>((tiles + warps - 1) / warps, static_cast<long long>(resident) * multiprocessors(exec));
    replay_entries<Op, V><<<static_cast<unsigned>(blocks), kEntryThreads, 0, stream_of(exec)>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

}  // namespace spk::detail::cuda::spgemm
