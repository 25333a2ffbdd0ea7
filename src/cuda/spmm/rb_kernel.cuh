#pragma once
// Row-based SpMM kernel family {<1/R row, VEC col>, R} (third paper, §3): a group of G lanes owns
// one row of A and a tile of (G/R)*VEC columns of B and C. Within the group, R lanes split the
// row's non-zeros and G/R lanes split the columns, each column lane loading VEC consecutive values
// of a row of B at once. The group first loads G (column, value) pairs cooperatively, one per
// lane, and shares them by shuffles; the R partial results are combined by group_reduce.
//   R = 1, G = 32 is RB+SR with 32-way column split; R = G = 32 is RB+PR.
#include <cstdint>
#include <type_traits>

#include "cuda/common/gather.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/common/segment_group.cuh"
#include "cuda/common/strided_shuffle.cuh"
#include "cuda/common/values.cuh"
#include "cuda/spmm/reductions.cuh"

namespace spk::detail::cuda {

template <class T, class I>
struct SpmmKernelArgs {
    const I* row_ptr;
    const I* col_idx;
    const T* values;
    const T* b;
    long long ldb;
    T* c;
    long long ldc;
    I* arg;  // null unless max/min with arg
    long long ldarg;
    const I* row_list;   // rows this launch covers (a row bin), or null for rows 0..num_rows-1
    long long num_rows;  // work items: rows, or row chunks when split
    // Split long rows (sum and mean only): item k covers non-zeros [chunk_begin[k], + chunk) of
    // row row_list[k] and adds its part to C atomically (C's rows were scaled by beta first), or
    // writes it to `partial` below.
    const long long* chunk_begin;
    long long chunk;
    long long n;
    accum_t<T> alpha, beta;
    bool mean;
    // Split rows, deterministic: item k writes its part to partial[k * n ...] instead of adding
    // it to C; combine_chunks then sums each row's parts in order.
    accum_t<T>* partial;
    // Sum launches of at most this many warps take the wide kernels (0: none do); see rb_wide_load_registers.
    long long wide_warps;
};

// Non-zeros whose B loads one lane issues back to back. More loads in flight hide latency, but
// every loaded value holds a register, and occupancy falls with registers.
#ifndef SPK_RB_LOAD_REGISTERS
#define SPK_RB_LOAD_REGISTERS 8
#endif
template <class A, int VEC, int LOAD_REGISTERS = SPK_RB_LOAD_REGISTERS>
constexpr int rb_batch() {
    constexpr int registers = VEC * static_cast<int>(sizeof(A) / 4);
    constexpr int batch = LOAD_REGISTERS / registers;
    return batch > 16 ? 16 : batch < 1 ? 1 : batch;
}

// The wide kernels (sum and mean): a launch too small to fill the device (a small matrix) leaves
// most of an SM's warp slots empty, and each of its warps walks a chain of dependent loads, one
// batch of B loads after another (the batches are separate: the warp must know whether its rows
// go on; the SASS shows each batch's products waiting on its loads before the next batch's
// loads issue). Twice the registers for loads halve the batches a chunk takes (a 32-lane shape
// with R = 4: 4 -> 2 round trips to memory a chunk of 32 non-zeros). At 4 blocks of 256 an SM
// (64 registers; 32 load registers at 3 blocks spilled 40-56 bytes in the split kernel) rather
// than 5, which costs nothing while the launch's warps all fit at once: at most
// rb_wide_resident_warps an SM (and, measured, at n = 128 to 511 up to four times that: spmm.cu's
// wide_warp_limit).
constexpr int rb_wide_load_registers = 16;
constexpr int rb_min_blocks = 5, rb_wide_min_blocks = 4;
constexpr int rb_wide_resident_warps = rb_wide_min_blocks * 256 / 32;  // blocks of 256 threads (rb_launch.cuh)

// The fold's working type: f32 products compared in f64, where they are exact: the winner (and
// its column) of a max or min is then the reference's, not one of two products that round to the
// same float.
template <class T, Fold F>
using fold_t = std::conditional_t<F != Fold::sum && std::is_same_v<T, float>, double, accum_t<T>>;

// One group of G lanes folds non-zeros [begin, end) of a row over its columns col0 .. col0 + VEC - 1
// (g: the lane within the group; valid_cols: how many of those columns are in C, 0 to VEC, and
// VEC for every lane of the warp when FullVector). On return the group's lanes with r == 0 hold
// the result: acc, and for an extremum the winning column in win (-1 where no product was folded).
//
// All 32 lanes of the warp call it together, also those whose group has no row (begin == end):
// the warp walks its longest row, lanes past their own row's end loading nothing, so that every
// shuffle takes the full mask. A divergent walk costs the warp the same issue slots (it runs until
// its last lane is done) and each shuffle over a per-group mask 5 more instructions, a convergence
// check, where the work of a non-zero is about 9 (SASS of the f32 kernel, stop 27).
template <class T, class I, int G, int R, int VEC, Fold F, bool FullVector, bool ReadOnly, int LoadRegisters>
__device__ __forceinline__ void rb_fold(const SpmmKernelArgs<T, I>& p, long long begin, long long end, int g, int valid_cols,
                                        const Gather<T>& b, fold_t<T, F> (&acc)[VEC], I (&win)[VEC]) {
    static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0 && R >= 1 && R <= G && G % R == 0, "bad group shape");
    using A = accum_t<T>;
    using Fa = fold_t<T, F>;
    constexpr bool extremum = F != Fold::sum;
    const int r = g & (R - 1);
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        acc[k] = fold_identity<F, Fa>();
        win[k] = I(-1);
    }

    // Each chunk of G non-zeros arrives one (column, value) pair per lane; the next chunk's pairs
    // are requested before this one is consumed. Every lane then takes G/R of the chunk's pairs by
    // shuffles, in batches whose B loads are all issued before the first product: rows are short
    // and each load waits on DRAM, so loads in flight, not arithmetic, set the pace.
    constexpr int steps = G / R;
    constexpr int batch = steps < rb_batch<A, VEC, LoadRegisters>() ? steps : rb_batch<A, VEC, LoadRegisters>();
    const I* const cols = p.col_idx + begin;
    const T* const vals = p.values + begin;
    // The group's non-zeros from the current chunk on, in 32 bits: the host refuses rows of 2^31
    // or more (64-bit bounds cost registers the batch's loads need: 48 a thread).
    int rest = static_cast<int>(end - begin);
    I next_j = 0;
    A next_a = 0;
    if (g < rest) {
        next_j = cols[g];
        next_a = to_accum(vals[g]);
    }
    for (int next = g + G;; next += G) {
        if (G == 32 ? rest <= 0 : !__any_sync(full_mask, rest > 0)) break;
        const I my_j = next_j;
        const A my_a = next_a;
        const int count = rest < G ? (rest > 0 ? rest : 0) : G;
        rest -= G;
        next_j = g < rest ? cols[next] : I(0);
        next_a = g < rest ? to_accum(vals[next]) : A(0);
        const int warp_count = G == 32 ? count : static_cast<int>(__reduce_max_sync(full_mask, static_cast<unsigned>(count)));
        // Slot u of batch s0 holds non-zero (s0 + u) * R + r: live while (s0 + u) * R < count - r,
        // an immediate compared with one register (with r on the left, the compiler held all
        // G / R slot numbers in registers through the loop).
        const int count_here = count - r;
#pragma unroll
        for (int s0 = 0; s0 < steps; s0 += batch) {
            if (s0 * R >= warp_count) break;  // the same for the whole warp
            I j[batch];
            A a[batch];
            bool live[batch];
            A bv[batch][VEC];
#pragma unroll
            for (int u = 0; u < batch; ++u) {
                j[u] = strided_shfl<G, R>(my_j, s0 + u);
                a[u] = strided_shfl<G, R>(my_a, s0 + u);
                live[u] = (s0 + u) * R < count_here;
                if constexpr (FullVector) {
                    if (!ReadOnly) {
                        if (live[u]) load_vec<T, VEC>(b.row(j[u]), bv[u]);
                    } else if (live[u]) {
                        const vec_storage<T, VEC> raw = b.template load_readonly_row<VEC>(j[u]);
#pragma unroll
                        for (int q = 0; q < VEC; ++q) bv[u][q] = to_accum(raw.v[q]);
                    }
                } else {
                    const T* brow = b.row(j[u]);
#pragma unroll
                    for (int q = 0; q < VEC; ++q) bv[u][q] = live[u] && q < valid_cols ? to_accum(brow[q]) : A(0);
                }
            }
#pragma unroll
            for (int u = 0; u < batch; ++u) {
                if (!live[u]) continue;  // predicates the products: a dead slot's bv was never loaded
#pragma unroll
                for (int q = 0; q < VEC; ++q) {
                    const Fa prod = static_cast<Fa>(a[u]) * static_cast<Fa>(bv[u][q]);
                    if constexpr (!extremum)
                        acc[q] += prod;
                    else if (fold_wins<F>(prod, j[u], acc[q], win[q])) {
                        acc[q] = prod;
                        win[q] = j[u];
                    }
                }
            }
        }
    }

    if constexpr (R > 1) {
#pragma unroll
        for (int q = 0; q < VEC; ++q) {
            if constexpr (!extremum)
                acc[q] = group_sum<R>(acc[q], full_mask);
            else {
#pragma unroll
                for (int offset = R / 2; offset > 0; offset /= 2) {
                    const Fa other = __shfl_xor_sync(full_mask, acc[q], offset, R);
                    const I other_j = __shfl_xor_sync(full_mask, win[q], offset, R);
                    if (fold_wins<F>(other, other_j, acc[q], win[q])) {
                        acc[q] = other;
                        win[q] = other_j;
                    }
                }
            }
        }
    }
}

// rb_fold for a lane whose columns start at col0 (col0 >= n: none, the lane only takes part in the
// shuffles). Warps whose lanes all hold VEC columns of C (every warp when the tile divides n) take
// the vector loads without any per-column test.
//
// ReadOnly: B's rows through ld.global.nc (Gather::load_readonly_row) or plain loads. Chosen per
// kernel by measurement, not by reasoning: on the H200 (f32, n = 128, A/B in one call at f1bf7b5)
// the plain loads took the row kernel 0.71-0.94x the time of the read-only ones (elasticity 40^3
// 0.601 -> 0.454 ms, bcsstk33 42.0 -> 29.7 us, uniform 1M x 16 2.30 -> 2.01 ms) and the same change
// took the one-launch split kernel 1.10-1.22x (R-MAT 20 1.50 -> 1.72 ms, soc-Slashdot0902 109 ->
// 120 us); at n = 32 both kernels were within 2% either way.
template <class T, class I, int G, int R, int VEC, Fold F, bool ReadOnly, int LoadRegisters>
__device__ __forceinline__ void rb_fold_columns(const SpmmKernelArgs<T, I>& p, long long begin, long long end, int g, long long col0,
                                                fold_t<T, F> (&acc)[VEC], I (&win)[VEC]) {
    const long long cols_left = p.n - col0;
    const int valid_cols = cols_left >= VEC ? VEC : cols_left > 0 ? static_cast<int>(cols_left) : 0;
    const Gather<T> b = gather_rows(p.b + (valid_cols > 0 ? col0 : 0), p.ldb);
    if (__all_sync(full_mask, valid_cols == VEC))
        rb_fold<T, I, G, R, VEC, F, true, ReadOnly, LoadRegisters>(p, begin, end, g, valid_cols, b, acc, win);
    else
        rb_fold<T, I, G, R, VEC, F, false, ReadOnly, LoadRegisters>(p, begin, end, g, valid_cols, b, acc, win);
}

// The rows (or, when split, the row chunks) of block `block` of a row-based launch: a group of G
// lanes a work item, written to C (or, when split, added to it or to the partial sums).
template <class T, class I, int G, int R, int VEC, Fold F, bool Split, bool ReadOnly, int LoadRegisters>
__device__ __forceinline__ void rb_rows(const SpmmKernelArgs<T, I>& p, long long block) {
    static_assert(!Split || (F == Fold::sum && (sizeof(T) >= 4)), "only f32/f64 sums split rows (atomic adds in the value type)");
    using A = accum_t<T>;
    constexpr int column_lanes = G / R;
    constexpr int tile = column_lanes * VEC;
    constexpr bool extremum = F != Fold::sum;

    const int g = static_cast<int>(threadIdx.x) & (G - 1);
    const int r = g & (R - 1);
    const int column_lane = g / R;
    const long long thread = block * blockDim.x + threadIdx.x;
    // Whole warps past the last work item leave together; in the last one, groups without a row
    // fold an empty one (rb_fold takes the warp's every lane).
    if ((thread & ~31LL) / G >= p.num_rows) return;
    const long long group = thread / G;
    const bool has_row = group < p.num_rows;
    const long long row = !has_row ? 0 : p.row_list ? static_cast<long long>(p.row_list[group]) : group;
    const long long col0 = static_cast<long long>(blockIdx.y) * tile + static_cast<long long>(column_lane) * VEC;
    const bool full_vector = col0 + VEC <= p.n;
    const long long row_begin = has_row ? static_cast<long long>(p.row_ptr[row]) : 0;
    const long long row_end = has_row ? static_cast<long long>(p.row_ptr[row + 1]) : 0;
    long long begin = row_begin, end = row_end;
    if constexpr (Split) {
        if (has_row) {
            begin = p.chunk_begin[group];
            end = begin + p.chunk < row_end ? begin + p.chunk : row_end;
        }
    }

    fold_t<T, F> acc[VEC];
    I win[VEC];
    rb_fold_columns<T, I, G, R, VEC, F, ReadOnly, LoadRegisters>(p, begin, end, g, col0, acc, win);
    if (!has_row) return;
    if (r != 0 || col0 >= p.n) return;
    const long long len = row_end - row_begin;
    A out_v[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
        out_v[q] = len == 0 ? A(0) : static_cast<A>(acc[q]);
        if (p.mean && len > 0) out_v[q] /= static_cast<A>(len);
        out_v[q] *= p.alpha;
    }
    T* out = p.c + row * p.ldc + col0;
    if constexpr (Split) {
        A* part = p.partial ? p.partial + group * p.n + col0 : nullptr;
#pragma unroll
        for (int q = 0; q < VEC; ++q) {
            if (col0 + q >= p.n) break;
            if (part)
                part[q] = out_v[q];
            else
                atomicAdd(out + q, out_v[q]);
        }
        return;
    }
    // One 16-byte store where the row of C allows it (the common case), else element by element.
    const bool vector_store = full_vector && (reinterpret_cast<unsigned long long>(out) % (sizeof(T) * VEC)) == 0;
    if (vector_store) {
        if (p.beta != A(0)) {
            A old[VEC];
            load_vec<T, VEC>(out, old);
#pragma unroll
            for (int q = 0; q < VEC; ++q) out_v[q] += p.beta * old[q];
        }
        store_vec<T, VEC>(out, out_v);
    } else {
#pragma unroll
        for (int q = 0; q < VEC; ++q) {
            if (col0 + q >= p.n) break;
            A v = out_v[q];
            if (p.beta != A(0)) v += p.beta * to_accum(out[q]);
            out[q] = from_accum<T>(v);
        }
    }
    if constexpr (extremum) {
        if (p.arg) {
#pragma unroll
            for (int q = 0; q < VEC; ++q)
                if (col0 + q < p.n) p.arg[row * p.ldarg + col0 + q] = len == 0 ? I(-1) : win[q];
        }
    }
}

// At least 5 blocks of 256 an SM (48 registers; a few instantiations spill 8 bytes; the wide
// kernels 4, see rb_wide_load_registers): the kernel is latency-bound (Nsight Compute on Laplace
// 128^3 at n = 128: 28% of DRAM, 52% of L2, neither issue nor memory saturated), so more warps in
// flight beat more registers. On the H200 it took 0.89-0.96x the time it took without the bound on
// 8 of 10 quick-suite cases, the rest unchanged.
template <class T, class I, int G, int R, int VEC, Fold F, bool Split = false, bool Wide = false>
__global__ void __launch_bounds__(256, Wide ? rb_wide_min_blocks : rb_min_blocks) spmm_rb_kernel(const SpmmKernelArgs<T, I> p) {
    static_assert(!Wide || (F == Fold::sum && !Split), "wide kernels: sums of whole rows");
    constexpr int load_registers = Wide ? rb_wide_load_registers : SPK_RB_LOAD_REGISTERS;
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)
    rb_rows<T, I, G, R, VEC, F, Split, false, load_registers>(p, blockIdx.x);  // plain loads: see rb_fold_columns
}

}  // namespace spk::detail::cuda
