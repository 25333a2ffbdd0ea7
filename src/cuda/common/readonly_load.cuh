#pragma once
// Loads through the read-only data path (ld.global.nc) of data no thread writes during the
// kernel (SDDMM's X and Y, SpMM's B; A's pattern and values go through __ldg directly). VEC values of T stay
// raw (one 16-byte register quad for the widest vectors, two for f64 x 4) so that 16-bit values take no more
// registers than they occupy.
#include <cuda_runtime.h>

#include "cuda/common/values.cuh"

namespace spk::detail::cuda {

template <class T, int VEC>
__device__ __forceinline__ vec_storage<T, VEC> load_readonly(const T* p) {
    using S = vec_storage<T, VEC>;
    S s;
    if constexpr (sizeof(S) == 32) {  // f64 x 4: two 16-byte loads
        const int4 lo = __ldg(reinterpret_cast<const int4*>(p));
        const int4 hi = __ldg(reinterpret_cast<const int4*>(p) + 1);
        __builtin_memcpy(&s, &lo, 16);
        __builtin_memcpy(reinterpret_cast<char*>(&s) + 16, &hi, 16);
    } else if constexpr (sizeof(S) == 16) {
        const int4 v = __ldg(reinterpret_cast<const int4*>(p));
        __builtin_memcpy(&s, &v, sizeof(S));
    } else if constexpr (sizeof(S) == 8) {
        const int2 v = __ldg(reinterpret_cast<const int2*>(p));
        __builtin_memcpy(&s, &v, sizeof(S));
    } else if constexpr (sizeof(S) == 4) {
        const int v = __ldg(reinterpret_cast<const int*>(p));
        __builtin_memcpy(&s, &v, sizeof(S));
    } else {
        static_assert(sizeof(S) == 2, "vectors of 2, 4, 8, 16 or 32 bytes");
        const unsigned short v = __ldg(reinterpret_cast<const unsigned short*>(p));
        __builtin_memcpy(&s, &v, sizeof(S));
    }
    return s;
}

}  // namespace spk::detail::cuda
