#pragma once
// Device-side value handling: spk's host value types mapped to CUDA's, accumulation types, and
// vector loads/stores of VEC consecutive values (16-byte loads where VEC and the type allow).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "spk/types.hpp"

namespace spk::detail::cuda {

template <class V>
struct device_value {
    using type = V;
};
template <>
struct device_value<f16> {
    using type = __half;
};
template <>
struct device_value<bf16> {
    using type = __nv_bfloat16;
};
template <class V>
using device_t = typename device_value<V>::type;

// f16/bf16/f32 accumulate in f32, f64 in f64.
template <class T>
struct accum_of {
    using type = float;
};
template <>
struct accum_of<double> {
    using type = double;
};
template <class T>
using accum_t = typename accum_of<T>::type;

__device__ __forceinline__ float to_accum(float x) { return x; }
__device__ __forceinline__ double to_accum(double x) { return x; }
__device__ __forceinline__ float to_accum(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_accum(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ __forceinline__ T from_accum(accum_t<T> x);
template <>
__device__ __forceinline__ float from_accum<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ double from_accum<double>(double x) {
    return x;
}
template <>
__device__ __forceinline__ __half from_accum<__half>(float x) {
    return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_accum<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}

// beta * v in T; beta == 0 gives 0 even where v is NaN or infinite (C's old contents are ignored).
template <class T>
__device__ __forceinline__ T times_beta(T v, accum_t<T> beta) {
    return beta == accum_t<T>(0) ? from_accum<T>(accum_t<T>(0)) : from_accum<T>(beta * to_accum(v));
}

// Raw storage of VEC values of T, loaded or stored as one access.
template <class T, int VEC>
struct alignas(sizeof(T) * VEC) vec_storage {
    T v[VEC];
};

// Load VEC values starting at p (p aligned to VEC elements) and widen them.
template <class T, int VEC>
__device__ __forceinline__ void load_vec(const T* p, accum_t<T> (&out)[VEC]) {
    const vec_storage<T, VEC> s = *reinterpret_cast<const vec_storage<T, VEC>*>(p);
#pragma unroll
    for (int k = 0; k < VEC; ++k) out[k] = to_accum(s.v[k]);
}

template <class T, int VEC>
__device__ __forceinline__ void store_vec(T* p, const accum_t<T> (&in)[VEC]) {
    vec_storage<T, VEC> s;
#pragma unroll
    for (int k = 0; k < VEC; ++k) s.v[k] = from_accum<T>(in[k]);
    *reinterpret_cast<vec_storage<T, VEC>*>(p) = s;
}

}  // namespace spk::detail::cuda
