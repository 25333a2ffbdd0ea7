#pragma once
// What a CUDA SpMM plan keeps: the configuration and, when long rows get their own kernel, the
// two row bins on the device.
#include <cstddef>

#include "core/spmm_kernels.hpp"
#include "spk/array.hpp"
#include "tune/spmm_config.hpp"

namespace spk::detail::cuda {

struct SpmmState {
    SpmmConfig config;
    SpmmFeatures features;
    // Row ids of each bin, stored as the matrix's index type (raw bytes: the state is not templated).
    Array<std::byte> short_rows, long_rows;
    index_t num_short = 0, num_long = 0;
    // Split long rows: chunk k is row chunk_rows[k] (index type), non-zeros from chunk_begin[k].
    Array<std::byte> chunk_rows;
    Array<long long> chunk_begin;
    index_t num_chunks = 0;
};

}  // namespace spk::detail::cuda
