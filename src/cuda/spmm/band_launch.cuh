#pragma once
// Launch of the band-window SpMM for a runtime shape: a switch over the compiled shapes.
// Instantiated for f32 and f64 (band_<type>.cu).
#include <cuda_runtime.h>

#include <string>

#include "cuda/common/check.cuh"
#include "cuda/common/dynamic_shared.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/spmm/band_kernel.cuh"
#include "spk/error.hpp"
#include "tune/spmm_config.hpp"
#include "tune/spmm_shapes.hpp"

namespace spk::detail::cuda {

template <class T, class I, int G, int VEC>
void launch_band_shape(const SpmmKernelArgs<T, I>& args, const BandArgs& band, cudaStream_t stream) {
    constexpr int tile = G * VEC;
    const long long blocks = (args.num_rows + band.panel - 1) / band.panel;
    const long long tiles = (args.n + tile - 1) / tile;
    if (blocks == 0 || tiles == 0) return;
    if (blocks > 0x7fffffffLL || (!band.all_tiles && tiles > 65535))
        unsupported("spmm: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) + " blocks)");
    // The plan checked that the device allows it (spmm_analyse).
    const std::size_t shared = static_cast<std::size_t>(band.panel + 2 * band.halo) * tile * sizeof(T);
    allow_dynamic_shared_memory(spmm_band_kernel<T, I, G, VEC>);
    const dim3 grid(static_cast<unsigned>(blocks), band.all_tiles ? 1u : static_cast<unsigned>(tiles));
    launch_after_previous(spmm_band_kernel<T, I, G, VEC>, grid, 256, shared, stream, args, band);
}

// s: {G, 1, VEC}, one of SPK_SPMM_BAND_SHAPES; args over all rows (no row list).
template <class T, class I>
void launch_band(const RbShape& s, const SpmmKernelArgs<T, I>& args, const BandArgs& band, cudaStream_t stream) {
#define SPK_BAND_CASE(G, VEC)                                \
    if (s.g == G && s.r == 1 && s.vec == VEC) {              \
        launch_band_shape<T, I, G, VEC>(args, band, stream); \
        return;                                              \
    }
    SPK_SPMM_BAND_SHAPES(SPK_BAND_CASE)
#undef SPK_BAND_CASE
    invalid_argument("spmm: band shape " + to_string(s) + " is not compiled");
}

}  // namespace spk::detail::cuda
