#pragma once
// strided_shfl<G, R>(v, step): the value that lane step * R + (lane % R) of this lane's group of G
// consecutive lanes holds (step < G / R), for the whole warp (every lane must call it).
//
// A row kernel's lane with position r within a group of R takes the non-zeros r, r + R, r + 2R, ...
// of a chunk its group loaded one per lane. __shfl_sync's width can only keep the caller's high
// lane bits (its group), so the source lane (group base | step * R | r) had to be computed in a
// register, and the compiler held all G / R of them through the loop (spills at 48 registers).
// PTX's shfl takes the segment mask itself (c[12:8]): bits set there come from the caller's lane,
// the others from b. Keeping the group bits and the low log2(R) bits, with b = step * R, names the
// source lane with an immediate. (PTX ISA, shfl.sync: j = (lane & segmask) | (b & ~segmask),
// valid while j <= (lane & segmask) | (clamp & ~segmask); clamp = 31 keeps every j valid.) Not
// volatile: callers' control flow around it is warp-uniform, so the compiler may schedule it freely.
#include <cuda_runtime.h>

#include <cstring>

namespace spk::detail::cuda {

template <int G, int R>
__device__ __forceinline__ unsigned strided_shfl_word(unsigned v, int step) {
    static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0 && R >= 1 && R <= G && G % R == 0, "bad group shape");
    constexpr unsigned segmask = (~static_cast<unsigned>(G - 1) & 31u) | static_cast<unsigned>(R - 1);
    constexpr unsigned c = (segmask << 8) | 31u;
    unsigned out;
    asm("shfl.sync.idx.b32 %0, %1, %2, %3, %4;" : "=r"(out) : "r"(v), "r"(step * R), "n"(c), "r"(0xffffffffu));
    return out;
}

template <int G, int R, class T>
__device__ __forceinline__ T strided_shfl(T v, int step) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
    if constexpr (G == 1) {
        return v;
    } else if constexpr (sizeof(T) == 4) {
        unsigned w;
        std::memcpy(&w, &v, 4);
        w = strided_shfl_word<G, R>(w, step);
        std::memcpy(&v, &w, 4);
        return v;
    } else {
        unsigned w[2];
        std::memcpy(w, &v, 8);
        w[0] = strided_shfl_word<G, R>(w[0], step);
        w[1] = strided_shfl_word<G, R>(w[1], step);
        std::memcpy(&v, w, 8);
        return v;
    }
}

}  // namespace spk::detail::cuda
