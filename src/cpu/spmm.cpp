// OpenMP SpMM. Rows go out in chunks of roughly equal non-zeros, handed out dynamically (rows
// have power-law lengths). Within a row the output is produced in column tiles of W
// accumulators that stay in registers, so the loop over the row's non-zeros is a run of FMAs on
// contiguous pieces of B's rows (row-major B); B rows a few non-zeros ahead are prefetched
// because they are scattered. Column-major B is read in place, a panel of columns per pass (no
// transpose, no allocation); column-major C costs strided stores in the epilogue only. Sums at
// n = 1, 2, 4, 8 and 16 take a leaner loop of their own (run_narrow).
#include <algorithm>
#include <cmath>

#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/value_load.hpp"

namespace spk::detail::cpu {

namespace {

constexpr index_t kPrefetchDistance = 8;        // non-zeros ahead: covers DRAM latency at a few ns per non-zero
// Row-major B: the rows of about this many bytes of tiles ahead are in flight (16 non-zeros of
// 128-byte tiles, 8 of 256-byte ones): at n = 32 16 non-zeros ahead took one core 0.74-0.88x the time
// of 8 on scattered columns (uniform, R-MAT 17, luxembourg_osm), at n = 128 up to 1.06x.
constexpr int kPrefetchBytes = 2048;
constexpr int kTileBytes = 256;                 // accumulators per tile: 8 AVX2 registers
constexpr double kSerialWork = 32768;           // below this many multiply-adds threads cost more than they give
constexpr index_t kColumnPanelBytes = 1 << 21;  // column-major B: columns read per pass (about an L2)

template <class V, class I>
struct Operands {
    const I* row_ptr;
    const I* col;
    const V* val;
    index_t nnz;
    const V* b;
    index_t ldb;
    V* c;
    index_t ldc;
    bool c_row_major;
    I* arg;  // null unless requested
    index_t ld_arg;
    bool arg_row_major;
    double alpha, beta;
};

// Max and min compare products exactly as the reference does (in double): a product of two f32
// is exact in double and a product of two f16 or bf16 is exact in float, so arg indices agree
// with the reference even where rounding the product to f32 would create a tie.
template <class V>
using extremum_acc_t = std::conditional_t<std::is_same_v<V, float> || std::is_same_v<V, double>, double, float>;
template <class V, Reduce R>
using tile_acc_t = std::conditional_t<R == Reduce::max || R == Reduce::min, extremum_acc_t<V>, accum_t<V>>;

template <class V>
inline void prefetch_tile(const V* p, int bytes) {
    for (int q = 0; q < bytes; q += 64) __builtin_prefetch(reinterpret_cast<const char*>(p) + q);
}

// acc[l] += sum over the row's non-zeros of a * B(j, k0 + l), l < width (= W when Full).
template <int W, bool Full, bool BRow, class Acc, class V, class I>
inline void sum_tile(const Operands<V, I>& o, index_t begin, index_t end, index_t k0, int width, Acc* acc) {
    const int tile_bytes = (Full ? W : width) * int(sizeof(V));
    const index_t ahead = std::clamp<index_t>(kPrefetchBytes / tile_bytes, kPrefetchDistance, 2 * kPrefetchDistance);
    for (index_t p = begin; p < end; ++p) {
        const index_t j = o.col[p];
        const Acc a = load_as<Acc>(o.val[p]);
        if constexpr (BRow) {
            if (p + ahead < o.nnz) prefetch_tile(o.b + static_cast<index_t>(o.col[p + ahead]) * o.ldb + k0, tile_bytes);
            const V* brow = o.b + j * o.ldb + k0;
            if constexpr (Full && std::is_same_v<V, f16>) {
                Acc row[W];
                load_row(brow, row, W);
                for (int l = 0; l < W; ++l) acc[l] = std::fma(a, row[l], acc[l]);
            } else if constexpr (Full) {
                for (int l = 0; l < W; ++l) acc[l] = std::fma(a, load_as<Acc>(brow[l]), acc[l]);
            } else {
                for (int l = 0; l < width; ++l) acc[l] = std::fma(a, load_as<Acc>(brow[l]), acc[l]);
            }
        } else {
            if (p + kPrefetchDistance < o.nnz) {
                const V* next = o.b + k0 * o.ldb + static_cast<index_t>(o.col[p + kPrefetchDistance]);
                for (int l = 0; l < (Full ? W : width); ++l) __builtin_prefetch(next + l * o.ldb);
            }
            const V* bcol = o.b + k0 * o.ldb + j;
            for (int l = 0; l < (Full ? W : width); ++l) acc[l] = std::fma(a, load_as<Acc>(bcol[l * o.ldb]), acc[l]);
        }
    }
}

// Max or min over the row's products with the reference's rules: the first extremum wins ties,
// the first NaN product wins and sticks. Requires begin < end.
template <int W, bool Full, bool BRow, Reduce R, class Acc, class V, class I>
inline void extremum_tile(const Operands<V, I>& o, index_t begin, index_t end, index_t k0, int width, Acc* acc, index_t* arg) {
    const int w = Full ? W : width;
    const auto b_at = [&](index_t j, int l) { return load_as<Acc>(BRow ? o.b[j * o.ldb + k0 + l] : o.b[(k0 + l) * o.ldb + j]); };
    {
        const index_t j = o.col[begin];
        const Acc a = load_as<Acc>(o.val[begin]);
        for (int l = 0; l < w; ++l) {
            acc[l] = a * b_at(j, l);
            arg[l] = j;
        }
    }
    for (index_t p = begin + 1; p < end; ++p) {
        const index_t j = o.col[p];
        const Acc a = load_as<Acc>(o.val[p]);
        if constexpr (BRow)
            if (p + kPrefetchDistance < o.nnz)
                prefetch_tile(o.b + static_cast<index_t>(o.col[p + kPrefetchDistance]) * o.ldb + k0, w * int(sizeof(V)));
        for (int l = 0; l < w; ++l) {
            const Acc prod = a * b_at(j, l);
            // Not (prod <= acc) is true for a NaN product; acc == acc is false once acc is NaN.
            const bool take = acc[l] == acc[l] && (R == Reduce::max ? !(prod <= acc[l]) : !(prod >= acc[l]));
            acc[l] = take ? prod : acc[l];
            arg[l] = take ? j : arg[l];
        }
    }
}

// One tile of row i: accumulate, then C = alpha * r + beta * C (C unread when beta == 0).
template <int W, bool Full, bool BRow, Reduce R, class V, class I>
inline void row_tile(const Operands<V, I>& o, index_t i, index_t k0, int width) {
    using Acc = tile_acc_t<V, R>;
    constexpr bool extremum = R == Reduce::max || R == Reduce::min;
    const int w = Full ? W : width;
    const index_t begin = o.row_ptr[i], end = o.row_ptr[i + 1], len = end - begin;
    Acc acc[W];
    index_t arg[extremum ? W : 1] = {};
    for (int l = 0; l < W; ++l) acc[l] = Acc(0);
    if constexpr (extremum) {
        if (len > 0) extremum_tile<W, Full, BRow, R>(o, begin, end, k0, w, acc, arg);
    } else {
        sum_tile<W, Full, BRow>(o, begin, end, k0, w, acc);
    }
    // acc is 0 for empty rows, which therefore give 0 (plus beta C).
    const Acc scale = static_cast<Acc>(R == Reduce::mean && len > 0 ? o.alpha / static_cast<double>(len) : o.alpha);
    const Acc beta = static_cast<Acc>(o.beta);
    // Called with a literal step 1 for row-major C, so that the stores vectorise.
    const auto write = [&](V* c, index_t step) {
        if (o.beta == 0.0)
            for (int l = 0; l < w; ++l) c[l * step] = store_as<V>(acc[l] * scale);
        else
            for (int l = 0; l < w; ++l) c[l * step] = store_as<V>(acc[l] * scale + beta * load_as<Acc>(c[l * step]));
    };
    if (o.c_row_major)
        write(o.c + i * o.ldc + k0, 1);
    else
        write(o.c + k0 * o.ldc + i, o.ldc);
    if (o.arg != nullptr) {
        I* out = o.arg_row_major ? o.arg + i * o.ld_arg + k0 : o.arg + k0 * o.ld_arg + i;
        const index_t step = o.arg_row_major ? 1 : o.ld_arg;
        for (int l = 0; l < w; ++l) out[l * step] = len == 0 ? I(-1) : static_cast<I>(arg[l]);
    }
}

// Row i over all n columns: full tiles of decreasing width, then a narrow remainder.
template <bool BRow, Reduce R, class V, class I>
inline void compute_row(const Operands<V, I>& o, index_t i, index_t n) {
    constexpr int wide = kTileBytes / int(sizeof(tile_acc_t<V, R>));
    index_t k0 = 0;
    for (; k0 + wide <= n; k0 += wide) row_tile<wide, true, BRow, R>(o, i, k0, wide);
    if (n - k0 >= wide / 2) {
        row_tile<wide / 2, true, BRow, R>(o, i, k0, wide / 2);
        k0 += wide / 2;
    }
    if (n - k0 >= wide / 4) {
        row_tile<wide / 4, true, BRow, R>(o, i, k0, wide / 4);
        k0 += wide / 4;
    }
    if (n - k0 >= wide / 8) {
        row_tile<wide / 8, true, BRow, R>(o, i, k0, wide / 8);
        k0 += wide / 8;
    }
    if (k0 < n) row_tile<wide / 8, false, BRow, R>(o, i, k0, static_cast<int>(n - k0));
}

// Calls row(i) for every row: serially for small problems, else over nnz-balanced chunks of rows
// handed out dynamically.
template <class V, class I, class RowFn>
void for_each_row(const Executor& exec, const Operands<V, I>& o, index_t rows, index_t n, RowFn&& row) {
    const double work = (static_cast<double>(o.nnz) + static_cast<double>(rows)) * static_cast<double>(n);
    const int threads = work < kSerialWork ? 1 : exec.threads();
    if (threads <= 1) {
        for (index_t i = 0; i < rows; ++i) row(i);
        return;
    }
    const std::vector<index_t> bounds = balanced_row_splits(o.row_ptr, rows, chunk_count(rows, threads));
    const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (index_t t = 0; t < chunks; ++t)
        for (index_t i = bounds[t]; i < bounds[t + 1]; ++i) row(i);
}

// Narrow n (W = 1, 2, 4, 8 or 16 columns, sum or mean): the tile machinery above (a tile of eight or
// more accumulators, loops over a runtime width, a prefetch of each B row) costs more than the
// few multiply-adds a non-zero brings; here a row is W dot products in registers. Two partial
// sums a column halve the chain of dependent adds (four measured no faster at n = 1; a multiply
// and an add in place of std::fma 15% slower). B(j, l) lies at b[j * b_row + l] (W > 1 only for
// row-major B; at W = 1 b_row is its step either way), C(i, l) at c[i * c_row + l * c_col].
template <int W, Reduce R, class V, class I>
void run_narrow(const Executor& exec, const Operands<V, I>& o, index_t rows, index_t b_row, index_t c_row, index_t c_col) {
    using Acc = accum_t<V>;
    const Acc beta = static_cast<Acc>(o.beta);
    const I* const col = o.col;
    const V* const val = o.val;
    const V* const b = o.b;
    for_each_row(exec, o, rows, W, [&](index_t i) {
        const index_t begin = o.row_ptr[i], end = o.row_ptr[i + 1];
        // Written out: the same loop through a helper lambda taking the sums by reference ran 2x
        // slower (the sums left registers; an Acc reference may alias A's values or B).
        Acc sum[2][W] = {};
        index_t p = begin;
        for (; p + 2 <= end; p += 2)
            for (int u = 0; u < 2; ++u) {
                const Acc a = load_as<Acc>(val[p + u]);
                const V* brow = b + static_cast<index_t>(col[p + u]) * b_row;
                for (int l = 0; l < W; ++l) sum[u][l] = std::fma(a, load_as<Acc>(brow[l]), sum[u][l]);
            }
        if (p < end) {
            const Acc a = load_as<Acc>(val[p]);
            const V* brow = b + static_cast<index_t>(col[p]) * b_row;
            for (int l = 0; l < W; ++l) sum[0][l] = std::fma(a, load_as<Acc>(brow[l]), sum[0][l]);
        }
        const index_t len = end - begin;
        const Acc scale = static_cast<Acc>(R == Reduce::mean && len > 0 ? o.alpha / static_cast<double>(len) : o.alpha);
        V* out = o.c + i * c_row;
        for (int l = 0; l < W; ++l) {
            const Acc r = (sum[0][l] + sum[1][l]) * scale;
            out[l * c_col] = store_as<V>(o.beta == 0.0 ? r : r + beta * load_as<Acc>(out[l * c_col]));
        }
    });
}

// The narrow loop where n is one of Widths; false elsewhere.
template <Reduce R, int... Widths, class V, class I>
bool run_narrow_if_fits(const Executor& exec, const Operands<V, I>& o, index_t rows, index_t n, index_t b_row) {
    const index_t c_row = o.c_row_major ? o.ldc : 1, c_col = o.c_row_major ? 1 : o.ldc;
    return ((n == Widths && (run_narrow<Widths, R>(exec, o, rows, b_row, c_row, c_col), true)) || ...);
}

// Row-major B: each row produces all n columns, tile after tile.
// Column-major B: a few columns of B at a time, for all rows, so that the columns being read
// (scattered by A's column indices) stay in cache; reading them all at once would touch one
// cache line per non-zero and column. The number of columns per pass keeps them within
// kColumnPanelBytes.
template <bool BRow, Reduce R, class V, class I>
void run_rows(const Executor& exec, const Operands<V, I>& o, index_t rows, index_t n, index_t b_rows) {
    // Narrow widths first; a column-major B's single column has its rows 1 apart.
    if constexpr (R == Reduce::sum || R == Reduce::mean)
        if ((BRow || n == 1) && run_narrow_if_fits<R, 1, 2, 4, 8, 16>(exec, o, rows, n, BRow ? o.ldb : 1)) return;
    if constexpr (BRow) {
        for_each_row(exec, o, rows, n, [&](index_t i) { compute_row<true, R>(o, i, n); });
    } else {
        constexpr int narrow = kTileBytes / int(sizeof(tile_acc_t<V, R>)) / 8;
        const index_t panel = std::clamp<index_t>(kColumnPanelBytes / std::max<index_t>(1, b_rows * index_t(sizeof(V))), 1, narrow);
        for (index_t k0 = 0; k0 < n; k0 += panel) {
            const int w = static_cast<int>(std::min(panel, n - k0));
            for_each_row(exec, o, rows, w, [&](index_t i) {
                if (w == narrow)
                    row_tile<narrow, true, false, R>(o, i, k0, narrow);
                else
                    row_tile<narrow, false, false, R>(o, i, k0, w);
            });
        }
    }
}

template <bool BRow, class V, class I>
void dispatch_reduce(const Executor& exec, const Operands<V, I>& o, Reduce reduce, index_t rows, index_t n, index_t b_rows) {
    switch (reduce) {
        case Reduce::sum:
            run_rows<BRow, Reduce::sum>(exec, o, rows, n, b_rows);
            break;
        case Reduce::mean:
            run_rows<BRow, Reduce::mean>(exec, o, rows, n, b_rows);
            break;
        case Reduce::max:
            run_rows<BRow, Reduce::max>(exec, o, rows, n, b_rows);
            break;
        case Reduce::min:
            run_rows<BRow, Reduce::min>(exec, o, rows, n, b_rows);
            break;
    }
}

// B (rows x cols, column-major, leading dimension ld) copied to row-major, in 64 x 64 blocks so
// that both sides of the copy move whole cache lines.
template <class V>
std::vector<V> row_major_copy(const Executor& exec, const V* b, index_t rows, index_t cols, index_t ld) {
    std::vector<V> out(static_cast<std::size_t>(rows * cols));
    constexpr index_t block = 64;
    const index_t row_blocks = (rows + block - 1) / block;
#pragma omp parallel for schedule(static) num_threads(exec.threads())
    for (index_t rb = 0; rb < row_blocks; ++rb) {
        const index_t r_end = std::min(rows, (rb + 1) * block);
        for (index_t c0 = 0; c0 < cols; c0 += block)
            for (index_t c = c0; c < std::min(cols, c0 + block); ++c)
                for (index_t r = rb * block; r < r_end; ++r) out[static_cast<std::size_t>(r * cols + c)] = b[c * ld + r];
    }
    return out;
}

}  // namespace

template <class V, class I>
void spmm(const Executor& exec, const SpmmArgs<V, I>& args) {
    const index_t rows = args.c.rows, n = args.c.cols;
    if (rows == 0 || n == 0) return;
    const Operands<V, I> o{args.a.row_ptr, args.a.col_idx, args.a.values,
                           args.a.nnz,     args.b.data,    args.b.ld,
                           args.c.data,    args.c.ld,      args.c.layout == Layout::row_major,
                           args.arg.data,  args.arg.ld,    args.arg.layout == Layout::row_major,
                           args.alpha,     args.beta};
    if (args.b.layout == Layout::row_major) {
        dispatch_reduce<true>(exec, o, args.reduce, rows, n, args.b.rows);
    } else if (args.b.rows * n * index_t(sizeof(V)) <= kColumnPanelBytes) {
        dispatch_reduce<false>(exec, o, args.reduce, rows, n, args.b.rows);  // B fits in cache: read it in place
    } else {
        // A large column-major B: rows of A gather scattered rows of B, so one pass to make B
        // row-major (read and write it once) is far cheaper than gathering across columns.
        const std::vector<V> b = row_major_copy(exec, args.b.data, args.b.rows, n, args.b.ld);
        Operands<V, I> row_major = o;
        row_major.b = b.data();
        row_major.ldb = n;
        dispatch_reduce<true>(exec, row_major, args.reduce, rows, n, args.b.rows);
    }
}

#define SPK_INSTANTIATE(V, I) template void spmm(const Executor&, const SpmmArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
