#pragma once
// Rows of a row-major operand gathered by index (B's rows by A's columns in SpMM; Y_j, Z_j, X_i and
// dE_i in FusedMM): a lane's first value in row 0 and the row stride in bytes, which the host
// checks fits 31 bits (check_gather_stride). With 32-bit indices an address is then one unsigned
// wide multiply-add (indices are never negative; the signed product took three instructions where
// the stride sat in a uniform register); from 64-bit leading dimensions in elements it took about
// seven (a 64-bit product, shifts, adds), read off the f32 kernels' SASS.
#include <cuda_runtime.h>

#include <cstddef>
#include <limits>
#include <string>

#include "cuda/common/readonly_load.cuh"
#include "cuda/common/values.cuh"
#include "spk/error.hpp"

namespace spk::detail::cuda {

template <class T>
struct Gather {
    const T* lane_base;
    int stride_bytes;
    template <class I>
    __device__ __forceinline__ const T* row(I j) const {
        const char* base = reinterpret_cast<const char*>(lane_base);
        if constexpr (sizeof(I) == 4)
            return reinterpret_cast<const T*>(base + static_cast<unsigned long long>(static_cast<unsigned>(j)) *
                                                         static_cast<unsigned>(stride_bytes));
        else
            return reinterpret_cast<const T*>(base + static_cast<long long>(j) * stride_bytes);
    }

    // VEC values of row j through the read-only path (the rows are not written during the
    // kernel). With 32-bit indices the address is one mad.wide.u32 in PTX, which ptxas keeps as
    // 3 instructions computed ahead of a predicated load; row()'s C++ product, once the load is
    // predicated, took 5 in the SpMM row kernel (copies of the base into the product's registers,
    // and an add of a zero high word). ld.global.nc needs no address space the asm would hide.
    template <int VEC, class I>
    __device__ __forceinline__ vec_storage<T, VEC> load_readonly_row(I j) const {
        if constexpr (sizeof(I) == 4) {
            unsigned long long address;
            asm("mad.wide.u32 %0, %1, %2, %3;"
                : "=l"(address)
                : "r"(static_cast<unsigned>(j)), "r"(static_cast<unsigned>(stride_bytes)), "l"(reinterpret_cast<unsigned long long>(lane_base)));
            return load_readonly<T, VEC>(reinterpret_cast<const T*>(address));
        } else {
            return load_readonly<T, VEC>(row(j));
        }
    }
};

// The gather of rows `ld` elements apart whose first value for this lane is at `lane_base`.
template <class T>
__device__ __forceinline__ Gather<T> gather_rows(const T* lane_base, long long ld) {
    return {lane_base, static_cast<int>(ld * static_cast<long long>(sizeof(T)))};
}

// Host side: refuses an operand whose rows lie further apart than a Gather's stride can say.
inline void check_gather_stride(const char* op, const char* name, long long ld, std::size_t size) {
    const long long bytes = ld * static_cast<long long>(size);
    if (bytes > std::numeric_limits<int>::max())
        unsupported(std::string(op) + " on CUDA: " + name + "'s rows are " + std::to_string(bytes) + " bytes apart (leading dimension " +
                    std::to_string(ld) + "); the kernels take at most 2^31 - 1");
}

}  // namespace spk::detail::cuda
