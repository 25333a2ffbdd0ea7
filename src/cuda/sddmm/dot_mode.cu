// The forward SDDMM's choice of dot kernel (dot_mode.hpp): the rows-mode shapes, and the test
// of A's row lengths behind the automatic choice.
#include <cuda_runtime.h>

#include <algorithm>
#include <charconv>
#include <compare>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/segment_group.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/sddmm/args.cuh"
#include "cuda/sddmm/dot_mode.hpp"

namespace spk::detail::cuda {

namespace {

// The thresholds of the automatic choice, with what the generators measure (groups of 4 rows,
// rounds of 4 entries: the k = 32 f32 shape; then rounds of 1):
//                     padded/nnz     longest/mean   neighbours within 32 columns
//   elasticity3d 40^3 1.055, 1.017   1.05           1.000
//   brick3d 40^3      1.060, 1.017   1.05           0.999
//   laplace3d 64^3    1.16,  1.005   1.01           1.000
//   banded (hw 5)     1.09,  1.000   1.00           1.000
//   uniform 16/row    1.00,  1.000   1.00           0.003 (every row the same length)
//   R-MAT scale 16    2.35,  2.25    430            0.25
//   powerlaw 16/row   3.28,  3.19    12000          0.001
//
// The rows mode pays for lanes idle past their row's end: with `group` rows per warp and rounds
// of `round` entries, a warp walks group x (its longest row, rounded up to whole rounds)
// positions. Chosen when that padded count stays within 10% of nnz: meshes with rows of tens of
// entries (elasticity's rows come in equal triples and differ only at the boundary) pass; rows
// of 7 (laplace3d) in rounds of 4 waste 1 of 8 and stay with the slices mode, which walks them
// without idle lanes; power-law rows are far above.
constexpr double rows_max_padding = 1.1;
// A matrix whose groups of rows cannot fill the device (split) loses more in the slices mode: its
// warps re-read X's row per entry and first search for their row, and their slices end mid-row.
// There the rows mode wins up to about 30% padding (H200, d = 128, split warps against slices:
// fidapex6 padded 1.29 8.4 us against 9.9, bcsstk13 1.29 11.0 against 11.6; d = 32, rounds of 4:
// bcsstk33 1.16 16.3 against 17.6, bcsstk13 1.32 6.5 against 6.5, fidapex6 1.35 6.4 against 5.7).
constexpr double rows_max_padding_split = 1.3;
// A row is walked by one sub-group alone: a row much longer than the rest would stretch the
// kernel (the slices mode splits it across warps). The longest row may hold 4x the mean (plus a
// few entries, so that rows averaging 1..2 entries may hold up to ~10): with at least one wave of
// row groups on the device (checked first), such a row costs at most a few groups' time.
constexpr double rows_max_longest_over_mean = 4.0;
constexpr double rows_longest_slack = 8.0;
// What the rows mode gains over the slices mode on a matrix that fills the device is Y rows
// shared by neighbouring rows; without it (random columns, as in the uniform generator, whose
// even rows pass the tests above) the slices mode, already efficient there, is kept. Neighbours
// share columns when most start within a few columns of each other: elasticity's rows 3 columns
// apart (0 within a node's triple), stencils' and bands' 1; random columns lie thousands apart
// (table above).
constexpr unsigned long long rows_local_window = 32;
constexpr double rows_min_local_fraction = 0.5;
// The rows kernel counts positions within a row in 32 bits (with room for its look-ahead).
constexpr long long rows_max_nnz = 1LL << 30;

// What the choice reads of A, summed over all rows:
struct RowStats {
    unsigned long long padded = 0;   // sum over groups of `group` consecutive rows: group x their longest row in whole rounds
    unsigned long long longest = 0;  // the longest row
    unsigned long long pairs = 0;    // neighbouring rows (within a warp of 32), both non-empty
    unsigned long long local = 0;    // of those, the ones whose first columns lie within rows_local_window
};

// One thread a row; lanes form groups of `group` consecutive rows (group divides 32, so the groups
// are aligned as the rows kernel's sub-groups are). Rows past the end are empty.
template <class I>
__global__ void __launch_bounds__(256)
    sddmm_row_stats_kernel(const I* row_ptr, const I* col_idx, long long rows, int group, int round, RowStats* stats) {
    using U64 = unsigned long long;
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long begin = row < rows ? static_cast<long long>(row_ptr[row]) : 0;
    const U64 len = row < rows ? static_cast<U64>(static_cast<long long>(row_ptr[row + 1]) - begin) : 0ULL;
    const long long first = len > 0 ? static_cast<long long>(col_idx[begin]) : 0;
    const auto max = [](U64 a, U64 b) { return a > b ? a : b; };

    U64 longest_in_group = len;
    for (int offset = 1; offset < group; offset *= 2)
        longest_in_group = max(longest_in_group, __shfl_xor_sync(full_mask, longest_in_group, offset));
    const bool group_head = (lane & (group - 1)) == 0;
    const U64 rounded = (longest_in_group + round - 1) / round * round;
    const U64 padded = group_sum<32>(group_head ? rounded * static_cast<U64>(group) : 0ULL);
    const U64 longest = group_reduce<32>(longest_in_group, max);

    const long long previous_first = __shfl_up_sync(full_mask, first, 1);
    const U64 previous_len = __shfl_up_sync(full_mask, len, 1);
    const bool pair = lane > 0 && len > 0 && previous_len > 0;
    const U64 distance = static_cast<U64>(first > previous_first ? first - previous_first : previous_first - first);
    const U64 pairs = group_sum<32>(pair ? 1ULL : 0ULL);
    const U64 local = group_sum<32>(pair && distance <= rows_local_window ? 1ULL : 0ULL);
    // The block's warps meet in shared memory, and one thread a block adds to the totals: a global
    // atomic per warp and field serialised on four addresses (125 us for a million rows on the H200).
    __shared__ RowStats block;
    if (threadIdx.x == 0) block = RowStats{};
    __syncthreads();
    if (lane == 0) {
        atomicAdd(&block.padded, padded);
        atomicMax(&block.longest, longest);
        atomicAdd(&block.pairs, pairs);
        atomicAdd(&block.local, local);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&stats->padded, block.padded);
        atomicMax(&stats->longest, block.longest);
        atomicAdd(&stats->pairs, block.pairs);
        atomicAdd(&stats->local, block.local);
    }
}

// A's row statistics, read back to the host (a synchronisation of exec's stream).
template <class I>
RowStats row_stats(const Executor& exec, const I* row_ptr, const I* col_idx, long long rows, int group, int round) {
    const cudaStream_t stream = static_cast<cudaStream_t>(exec.stream());
    Workspace<RowStats> stats(exec, 1);
    SPK_CUDA_CHECK(cudaMemsetAsync(stats.data(), 0, sizeof(RowStats), stream));
    const long long blocks = (rows + 255) / 256;
    if (blocks > 0x7fffffffLL) unsupported("sddmm: " + std::to_string(rows) + " rows are too many for one launch");
    sddmm_row_stats_kernel<I><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(row_ptr, col_idx, rows, group, round, stats.data());
    SPK_CUDA_CHECK_LAUNCH();
    RowStats host;
    SPK_CUDA_CHECK(cudaMemcpyAsync(&host, stats.data(), sizeof(RowStats), cudaMemcpyDeviceToHost, stream));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

// The choices made so far, by A's arrays: repeated products with the same A (a GNN layer's every
// step) skip the statistics and their wait. A stale entry (A's arrays freed and their addresses
// reused for another matrix of the same size) can only cost speed: both kernels compute every
// matrix correctly.
struct ChoiceKey {
    int device;
    const void* row_ptr;
    const void* col_idx;
    long long rows, nnz;
    int group, round;
    auto operator<=>(const ChoiceKey&) const = default;
};

class ChoiceCache {
public:
    std::optional<bool> find(const ChoiceKey& key) {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = choices_.find(key);
        return it == choices_.end() ? std::nullopt : std::optional<bool>(it->second);
    }
    void keep(const ChoiceKey& key, bool use_rows) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (choices_.size() >= kCapacity) choices_.clear();  // a bound, not a policy: entries are cheap to recompute
        choices_[key] = use_rows;
    }

private:
    static constexpr std::size_t kCapacity = 256;
    std::mutex mutex_;
    std::map<ChoiceKey, bool> choices_;
};

ChoiceCache& choice_cache() {
    static ChoiceCache cache;
    return cache;
}

}  // namespace

SddmmRowsShape pick_rows_shape(long long d, int wide, int lanes) {
    const long long needed = (d + wide - 1) / wide;  // vectors of `wide` features one head needs
    const int held = sddmm_rows_held(wide);
    if ((lanes == 0 || lanes == 4) && needed <= 4) return {4, wide, 1};
    if (lanes == 0 || lanes == 8) {
        if (needed <= 8) return {8, wide, 1};
        if (needed <= 8LL * held) return {8, wide, held};
    }
    if ((lanes == 0 || lanes == 32) && needed <= 32LL * held) return {32, wide, held};
    return {};
}

namespace {

// A config string taken apart: "rows[.g<lanes>][.s<split>]" (0: not given), or slices.
struct ParsedConfig {
    bool given = false, rows = false;
    int lanes = 0, split = 0;
};

int parse_config_number(std::string_view config, std::string_view part) {
    int v = 0;
    const auto [ptr, ec] = std::from_chars(part.data() + 1, part.data() + part.size(), v);
    if (ec != std::errc{} || ptr != part.data() + part.size() || v < 1 || v > (1 << 16))
        invalid_argument("sddmm: options.config \"" + std::string(config) + "\": \"" + std::string(part) +
                         "\" is not a count from 1 to 65536 after its letter");
    return v;
}

ParsedConfig parse_config(std::string_view config) {
    if (config.empty()) return {};
    if (config == "slices") return {true, false};
    const auto bad = [&] {
        invalid_argument("sddmm: options.config \"" + std::string(config) +
                         "\" is not \"slices\", \"rows\" (optionally .g<lanes a row: 4, 8 or 32>, .s<warps a group of rows>) or empty "
                         "(automatic)");
    };
    if (config.substr(0, 4) != "rows") bad();
    ParsedConfig c{true, true};
    std::string_view rest = config.substr(4);
    while (!rest.empty()) {
        if (rest[0] != '.') bad();
        rest.remove_prefix(1);
        const std::string_view part = rest.substr(0, rest.find('.'));
        rest.remove_prefix(part.size());
        if (part.empty()) bad();
        if (part[0] == 'g' && c.lanes == 0) {
            c.lanes = parse_config_number(config, part);
            if (c.lanes != 4 && c.lanes != 8 && c.lanes != 32) bad();
        } else if (part[0] == 's' && c.split == 0)
            c.split = parse_config_number(config, part);
        else
            bad();
    }
    return c;
}

// Warps per group of rows when `groups` groups alone would not hold about two waves of the
// device's warps (`warp_slots` at once): enough for two waves, but no warp's span under two
// rounds of the mean row (a warp's fixed cost, its row bounds and X's row, is then paid for).
long long rows_split(long long groups, long long warp_slots, double mean_row, int round) {
    // With one entry a round (X's row held in several steps: 128 floats) a warp's fixed cost, its
    // row bounds and X's row, weighs more, and spans of two or three positions lost to spans of
    // several: 8 warps a group measured best on the small meshes (H200, d = 128, us: bcsstk13 7.8
    // against 8.8 at the rule below's 17, fidapex6 5.4 against 6.7 at 15, bcsstk33 31.4 against
    // 34.3 at 4; bcsstk16 16.0 against 15.3 at 7). Fewer than 8 where rows average fewer entries.
    if (round == 1) return std::clamp(static_cast<long long>(mean_row), 1LL, 8LL);
    const long long fill = (2 * warp_slots + groups - 1) / std::max(groups, 1LL);
    const long long most = std::max(1LL, static_cast<long long>(mean_row / (2.0 * round)));
    return std::clamp(fill, 1LL, most);
}

}  // namespace

void check_sddmm_config(std::string_view config) { parse_config(config); }

template <class V, class I>
SddmmDotChoice sddmm_dot_choice(const Executor& exec, CsrView<const V, I> a, index_t d, bool vector_ok, std::string_view config) {
    const ParsedConfig parsed = parse_config(config);
    if (parsed.given && !parsed.rows) return {};
    const SddmmRowsShape shape = pick_rows_shape(d, vector_ok ? static_cast<int>(16 / sizeof(V)) : 1, parsed.lanes);
    // X's row would not fit in registers, or a row's positions not in the kernel's 32-bit count.
    if (shape.g == 0 || a.nnz >= rows_max_nnz) return {};
    // A group of rows for every warp the device holds at once, or warps share groups (split).
    const long long warp_slots =
        static_cast<long long>(device_properties(exec.device()).sm_count) * sddmm_dot_min_blocks * (sddmm_block_threads / 32);
    const int group = 32 / shape.g, round = sddmm_rows_round(shape.held);
    const long long groups = (a.rows + group - 1) / group;
    const bool fills = groups >= warp_slots;
    const double mean = a.rows > 0 ? static_cast<double>(a.nnz) / static_cast<double>(a.rows) : 0.0;
    const int split = parsed.split != 0 ? parsed.split : fills ? 1 : static_cast<int>(rows_split(groups, warp_slots, mean, round));
    const SddmmDotChoice rows{SddmmDotMode::rows, shape, split};
    if (parsed.rows) return rows;
    if (a.nnz == 0) return {};
    const ChoiceKey key{exec.device(), a.row_ptr, a.col_idx, a.rows, a.nnz, group, round};
    std::optional<bool> use_rows = choice_cache().find(key);
    if (!use_rows) {
        const RowStats stats = row_stats<I>(exec, a.row_ptr, a.col_idx, a.rows, group, round);
        const double nnz = static_cast<double>(a.nnz);
        const double most_padding = fills ? rows_max_padding : rows_max_padding_split;
        const bool even = static_cast<double>(stats.padded) <= most_padding * nnz &&
                          static_cast<double>(stats.longest) <= rows_max_longest_over_mean * mean + rows_longest_slack;
        const bool neighbours_share = static_cast<double>(stats.local) >= rows_min_local_fraction * static_cast<double>(stats.pairs);
        // Where the groups do not fill the device, even rows take the rows mode whatever their
        // columns: its warps wait on three loads before their first product (row bounds,
        // columns, Y), a slices warp on a search and a walk too (H200, crack: rows of 6 whose
        // neighbours start far apart, 4.3 -> 3.6 us at d = 32, 10.6 -> 8.8 at d = 128).
        use_rows = even && (neighbours_share || !fills);
        choice_cache().keep(key, *use_rows);
    }
    return *use_rows ? rows : SddmmDotChoice{};
}

#define SPK_INSTANTIATE(V, I) \
    template SddmmDotChoice sddmm_dot_choice(const Executor&, CsrView<const V, I>, index_t, bool, std::string_view);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
