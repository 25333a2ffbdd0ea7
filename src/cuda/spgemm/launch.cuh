#pragma once
// Host-side helpers shared by the SpGEMM drivers: the stream, cub's two-call temporary storage,
// device-to-host reads, and the launch of one bin's kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/common/dynamic_shared.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/spgemm/state.hpp"
#include "spk/executor.hpp"

namespace spk::detail::cuda::spgemm {

inline cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

// Runs a cub algorithm f(temp, bytes): once to size its temporary storage, once to do the work.
template <class F>
void run_cub(const Executor& exec, F&& f) {
    std::size_t bytes = 0;
    SPK_CUDA_CHECK(f(nullptr, bytes));
    Workspace<std::byte> temp(exec, std::max<std::size_t>(bytes, 1));  // freed on the stream, after the work
    SPK_CUDA_CHECK(f(temp.data(), bytes));
}

// Blocks for `items` work items, `per_block` a block (at least one block).
inline unsigned grid_for(long long items, int per_block) {
    return static_cast<unsigned>(std::max<long long>(1, (items + per_block - 1) / per_block));
}

// n values from device memory, after the work queued before them.
template <class T>
std::vector<T> read_back(const Executor& exec, const T* device, std::size_t n) {
    std::vector<T> host(n);
    if (n) SPK_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost, stream_of(exec)));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    return host;
}

inline int multiprocessors(const Executor& exec) {
    int sms = 0;
    SPK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, exec.device()));
    return sms;
}

// Threads per entry of A: B's average row (or pair list) length rounded up to a power of two, at
// most a warp, so that short rows of B do not leave most threads idle.
inline int entry_width(long long entries, long long rows) {
    const long long avg = rows > 0 ? (entries + rows - 1) / rows : 1;
    int w = 1;
    while (w < 32 && w < avg) w <<= 1;
    return w;
}

// Dynamic shared memory a block of the global bin may take: the device's opt-in limit less room
// for the kernels' static shared variables.
inline long long shared_memory_limit(const Executor& exec) {
    int bytes = 0;
    SPK_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, exec.device()));
    return bytes - 1024;
}

// Blocks of the global bin: as many as run at once (each owns a pool slot and pulls rows from a
// counter), no more than its rows.
template <class Args>
long long global_slots(const Executor& exec, void (*kernel)(Args), long long smem, long long rows) {
    allow_dynamic_shared_memory(kernel);
    int per_sm = 0;
    SPK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBinShapes[kGlobalBin].threads, static_cast<std::size_t>(smem)));
    return std::min<long long>(rows, static_cast<long long>(std::max(per_sm, 1)) * multiprocessors(exec));
}

// Calls launch(bin, count, a) for each non-empty bin, a being a copy of args that covers the bin:
// its row ids (from ids, laid out by bins), their count and the bin's table size.
template <class Args, class I, class Launch>
void for_each_bin(const BinLayout& bins, const I* ids, const Args& args, Launch&& launch) {
    for (int bin = 1; bin < kBins; ++bin) {
        const long long count = bins.count(bin);
        if (count == 0) continue;
        Args a = args;
        a.rows = ids + bins.start[bin];
        a.num_rows = count;
        a.log2_capacity = kBinShapes[bin].log2_capacity;
        launch(bin, count, a);
    }
}

// Launches kernel over `count` rows of a bin with the bin's threads and a table of
// 2^args.log2_capacity entries of entry_bytes per group (warp or block) in shared memory.
// The global bin gets `slots` blocks with global_smem bytes of dynamic shared memory each; the
// others extra_bytes a block beyond their tables.
template <class Args>
void launch_bin(void (*kernel)(Args), Args args, int bin, long long count, std::size_t entry_bytes, long long slots, long long global_smem,
                cudaStream_t stream, std::size_t extra_bytes = 0) {
    const BinShape& shape = kBinShapes[bin];
    const long long groups_per_block = shape.warp ? shape.threads / 32 : 1;
    const std::size_t smem = bin == kGlobalBin ? static_cast<std::size_t>(global_smem)
                                               : static_cast<std::size_t>(groups_per_block) * (std::size_t{1} << args.log2_capacity) * entry_bytes +
                                                     extra_bytes;
    allow_dynamic_shared_memory(kernel);
    const long long blocks = bin == kGlobalBin ? slots : std::min<long long>((count + groups_per_block - 1) / groups_per_block, 1ll << 30);
    kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(shape.threads), smem, stream>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

}  // namespace spk::detail::cuda::spgemm
