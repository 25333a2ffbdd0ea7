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
// state.reuse.entries (narrow records where every tile's rows span at most kNarrowSpan entries of A,
// else wide), dropping the places they replace. Returns false,
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

    const long long tiles = (entries + kEntryTile - 1) / kEntryTile;
    Workspace<unsigned> cursor(exec, static_cast<std::size_t>(entries) + 1);  // each entry's next free position
    Workspace<unsigned long long> stats(exec, 2);  // A's entries in covered rows; the widest tile's span of them
    Array<unsigned> tile_a_first(exec, static_cast<std::size_t>(tiles));  // kept with narrow records
    Workspace<unsigned> tile_a_last(exec, static_cast<std::size_t>(tiles));
    Array<unsigned> tile_start(exec, static_cast<std::size_t>(tiles) + 1);
    {
        Workspace<unsigned> counts(exec, static_cast<std::size_t>(entries));
        SPK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, static_cast<std::size_t>(entries) * sizeof(unsigned), stream));
        SPK_CUDA_CHECK(cudaMemsetAsync(stats.data(), 0, 2 * sizeof(unsigned long long), stream));
        SPK_CUDA_CHECK(cudaMemsetAsync(tile_a_first.data(), 0xff, static_cast<std::size_t>(tiles) * sizeof(unsigned), stream));
        SPK_CUDA_CHECK(cudaMemsetAsync(tile_a_last.data(), 0, static_cast<std::size_t>(tiles) * sizeof(unsigned), stream));
        count_entry_products<V, I><<<blocks, threads, 0, stream>>>(shape, rows, kEntryMaxBin, counts.data(), stats.data(), tile_a_first.data(),
                                                                    tile_a_last.data());
        SPK_CUDA_CHECK_LAUNCH();
        prefix_sum(exec, counts.data(), entries, cursor.data());
    }
    entry_tile_starts<<<grid_for(tiles + 1, 256), 256, 0, stream>>>(cursor.data(), entries, tiles, tile_start.data(), tile_a_first.data(),
                                                                     tile_a_last.data(), stats.data() + 1);
    SPK_CUDA_CHECK_LAUNCH();
    const long long covered = read_back(exec, cursor.data() + entries, 1).front();
    if (covered == 0) return false;
    const std::vector<unsigned long long> counted = read_back(exec, stats.data(), 2);
    // the mean length of the rows of B that the covered entries of A reach
    if (automatic && static_cast<double>(covered) > kEntriesMaxRowOfB * static_cast<double>(counted[0])) return false;
    const bool narrow = counted[1] <= static_cast<unsigned long long>(kNarrowSpan);
    const double record_bytes = narrow ? sizeof(EntryKey) + sizeof(std::uint8_t) : sizeof(EntryRecord);
    const double kept = static_cast<double>(covered) * record_bytes + static_cast<double>(reuse.global_places.size()) * sizeof(global_place_t);
    if (kept > static_cast<double>(device_properties(exec.device()).global_bytes) / 4) return false;

    auto& kept_records = reuse.entries;
    if (narrow) {
        Array<EntryKey> keys(exec, static_cast<std::size_t>(covered));
        Array<std::uint8_t> a_offset(exec, static_cast<std::size_t>(covered));
        place_entry_products<V, I><<<blocks, threads, 0, stream>>>(shape, rows, kEntryMaxBin, cursor.data(), nullptr, keys.data(),
                                                                    a_offset.data(), tile_a_first.data());
        SPK_CUDA_CHECK_LAUNCH();
        kept_records.keys = std::move(keys);
        kept_records.a_offset = std::move(a_offset);
        kept_records.tile_a_first = std::move(tile_a_first);
    } else {
        Array<EntryRecord> records(exec, static_cast<std::size_t>(covered));
        place_entry_products<V, I><<<blocks, threads, 0, stream>>>(shape, rows, kEntryMaxBin, cursor.data(), records.data(), nullptr, nullptr,
                                                                    nullptr);
        SPK_CUDA_CHECK_LAUNCH();
        kept_records.records = std::move(records);
    }
    kept_records.tile_start = std::move(tile_start);
    kept_records.max_bin = kEntryMaxBin;
    reuse.places = Array<place_t>();  // every row with these places is covered
    reuse.entry_offset = Array<long long>();
    return true;
}

// C's values of the covered rows from the records (every other entry of C is left as it is).
template <class Op, class V, bool Narrow>
void launch_replay_entries(const Executor& exec, const EntryReplayArgs<V>& args) {
    // Warps take tiles in a grid-stride walk (each fetches its next tile's products early): as
    // many blocks as stay resident.
    static const int resident = [] {
        int blocks = 0;
        SPK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, replay_entries<Op, V, Narrow>, kEntryThreads, 0));
        return std::max(blocks, 1);
    }();
    constexpr int warps = kEntryThreads / 32;
    const long long blocks = std::min<long long>((args.tiles + warps - 1) / warps, static_cast<long long>(resident) * multiprocessors(exec));
    replay_entries<Op, V, Narrow><<<static_cast<unsigned>(blocks), kEntryThreads, 0, stream_of(exec)>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// C's values of the covered rows from the records (every other entry of C is left as it is).
template <class Op, class V, class I>
void replay_by_entries(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, V* c_values) {
    const auto& kept = state.reuse.entries;
    const long long tiles = static_cast<long long>(kept.tile_start.size()) - 1;
    const EntryReplayArgs<V> args{kept.records.data(), kept.keys.data(), kept.a_offset.data(), kept.tile_a_first.data(), kept.tile_start.data(),
                                  tiles, p.a.values, p.b.values, c_values};
    if (kept.narrow())
        launch_replay_entries<Op, V, true>(exec, args);
    else
        launch_replay_entries<Op, V, false>(exec, args);
}

}  // namespace spk::detail::cuda::spgemm
