#pragma once
// Band-window SpMM (sum and mean): a block of the row kernel's groups (G lanes a row, each lane
// VEC columns of a tile of G * VEC) takes a panel of `panel` consecutive rows. It first copies
// the rows of B within `halo` of the panel, [first row - halo, last row + halo], restricted to its
// column tile, to shared memory; a non-zero whose column falls in that window reads its row of B
// from there, any other from global memory.
//
// Why: on a mesh or stencil matrix most non-zeros sit near the diagonal and each row of B is read
// once for every row of A that holds its column (7 times on the 3D Laplacian). The row kernel
// gathers each of them from L2: on Laplace 128^3 at n = 128 its best configuration (1.23 ms)
// moves about 8.8 GB through L2 (7.5 GB of B's rows, C, A), some 7 TB/s (an estimate from bytes,
// no counters read), about what the H100's L2 delivers (5.5 TB/s measured on the PCIe part with
// 114 SMs at 1.755 GHz: chipsandcheese.com, "Nvidia's H100: Funny L2, and Tons of Bandwidth",
// 2023; scaled to 132 SMs at 1.98 GHz, 7.2). With panels of 512 rows and a halo of 128, its x and
// y neighbours (offsets 1 and 128) come from shared memory: 3.5 reads of a row of B from L2 a
// row, not 7.
#include <cstdint>
#include <type_traits>

#include "cuda/common/gather.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/spmm/rb_kernel.cuh"

namespace spk::detail::cuda {

// B's rows for rb_fold: rows [first, first + count) from the window in shared memory (TILE
// values a row), the others from global memory.
template <class T, class I, int TILE>
struct BandRows {
    Gather<T> global;  // the lane's first column in B
    const T* window;   // the lane's first column in the window's row 0
    I first;
    std::make_unsigned_t<I> count;
    __device__ __forceinline__ const T* row(I j) const {
        using U = std::make_unsigned_t<I>;
        const U at = static_cast<U>(j) - static_cast<U>(first);  // wraps past count for j < first
        return at < count ? window + static_cast<unsigned long long>(at) * TILE : global.row(j);
    }
};

// Copies rows [first, first + count) of B, columns [col0, col0 + TILE), to window (TILE values a
// row; columns at or past n read as 0). Full 16-byte pieces go by cp.async, straight to shared
// memory without registers; the block waits for all of them.
template <class T, int TILE>
__device__ __forceinline__ void stage_band_window(const T* b, long long ldb, long long n, long long first, long long count, long long col0,
                                                  T* window) {
    constexpr int per_piece = 16 / static_cast<int>(sizeof(T));
    constexpr int pieces_a_row = TILE / per_piece;
    static_assert(TILE % per_piece == 0, "a window row is whole 16-byte pieces");
    const bool aligned = (reinterpret_cast<unsigned long long>(b) % 16) == 0 && (ldb * static_cast<long long>(sizeof(T))) % 16 == 0;
    const long long total = count * pieces_a_row;
    for (long long k = threadIdx.x; k < total; k += blockDim.x) {
        const long long row = k / pieces_a_row;
        const int piece = static_cast<int>(k % pieces_a_row);
        const long long col = col0 + static_cast<long long>(piece) * per_piece;
        T* dst = window + row * TILE + piece * per_piece;
        const T* src = b + (first + row) * ldb + col;
        if (aligned && col + per_piece <= n) {
            const auto dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst_shared), "l"(src) : "memory");
        } else {
#pragma unroll
            for (int q = 0; q < per_piece; ++q) dst[q] = col + q < n ? src[q] : T(0);
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
}

struct BandArgs {
    long long panel;   // rows of A a block takes
    long long halo;    // rows of B staged on each side of the panel
    long long b_rows;  // rows of B (columns of A)
    bool all_tiles;    // a block walks every column tile of its panel (grid.y = 1), else one (grid.y = tiles)
};

// The panel's rows over one column tile, from `window` (staged) and B: the block's groups walk the
// panel together, a group's rows `groups` apart, so that neighbouring rows run at about the same time.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ void band_tile(const SpmmKernelArgs<T, I>& p, long long panel_begin, long long panel_end, long long first,
                                          long long count, long long tile0, const T* window) {
    constexpr int tile = G * VEC;
    const int g = static_cast<int>(threadIdx.x) & (G - 1);
    const long long col0 = tile0 + static_cast<long long>(g) * VEC;
    const long long cols_left = p.n - col0;
    const int valid_cols = cols_left >= VEC ? VEC : cols_left > 0 ? static_cast<int>(cols_left) : 0;
    const BandRows<T, I, tile> rows{gather_rows(p.b + (valid_cols > 0 ? col0 : 0), p.ldb), window + g * VEC, static_cast<I>(first),
                                    static_cast<std::make_unsigned_t<I>>(count)};
    const bool full_vector = __all_sync(full_mask, valid_cols == VEC);
    constexpr int groups = 256 / G;
    const long long warp_first_group = static_cast<long long>(threadIdx.x / 32) * (32 / G);
    for (long long base = panel_begin; base + warp_first_group < panel_end; base += groups) {
        const long long row = base + static_cast<long long>(threadIdx.x / G);
        const bool has_row = row < panel_end;
        const long long begin = has_row ? static_cast<long long>(p.row_ptr[row]) : 0;
        const long long end = has_row ? static_cast<long long>(p.row_ptr[row + 1]) : 0;
        accum_t<T> acc[VEC];
        I unused[VEC];
        if (full_vector)
            rb_fold<T, I, G, 1, VEC, Fold::sum, true, false, rb_wide_load_registers>(p, begin, end, g, valid_cols, rows, acc, unused);
        else
            rb_fold<T, I, G, 1, VEC, Fold::sum, false, false, rb_wide_load_registers>(p, begin, end, g, valid_cols, rows, acc, unused);
        if (!has_row || valid_cols == 0) continue;
        accum_t<T> out_v[VEC];
        rb_scale_result<T, I, VEC, Fold::sum>(p, end - begin, acc, out_v);
        rb_store_row<T, I, VEC>(p, p.c + row * p.ldc + col0, col0, valid_cols == VEC, out_v);
    }
}

// Two blocks of 256 an SM: a window of 768 rows of 32 f32 columns takes 96 KB. Shared memory,
// not registers, bounds the warps an SM holds, so lanes take the wide kernels' 16 load registers
// (rb_wide_load_registers: 4 rows of B in flight a batch at f32 x 4, not 2).
// With all_tiles a block stages and walks its panel once a column tile: A's panel is read from
// memory once, not once a tile (4 times at n = 128 in tiles of 32), and re-read from L1 or L2.
template <class T, class I, int G, int VEC>
__global__ void __launch_bounds__(256, 2) spmm_band_kernel(const SpmmKernelArgs<T, I> p, const BandArgs band) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "band windows: f32 and f64 sums");
    constexpr int tile = G * VEC;
    extern __shared__ __align__(32) unsigned char band_shared[];  // f64 x 4 rows: 32-byte vectors
    T* const window = reinterpret_cast<T*>(band_shared);
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)

    const long long panel_begin = static_cast<long long>(blockIdx.x) * band.panel;
    const long long panel_end = panel_begin + band.panel < p.num_rows ? panel_begin + band.panel : p.num_rows;
    const long long first = panel_begin > band.halo ? panel_begin - band.halo : 0;
    const long long last = panel_end + band.halo < band.b_rows ? panel_end + band.halo : band.b_rows;
    const long long count = last > first ? last - first : 0;
    const long long tiles = (p.n + tile - 1) / tile;
    const long long tile_first = band.all_tiles ? 0 : blockIdx.y, tile_end = band.all_tiles ? tiles : tile_first + 1;
    for (long long t = tile_first; t < tile_end; ++t) {
        if (t > tile_first) __syncthreads();  // every warp is done with the previous tile's window
        stage_band_window<T, tile>(p.b, p.ldb, p.n, first, count, t * tile, window);
        band_tile<T, I, G, VEC>(p, panel_begin, panel_end, first, count, t * tile, window);
    }
}

}  // namespace spk::detail::cuda
