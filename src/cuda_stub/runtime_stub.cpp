// Compiled instead of src/cuda/ when spk is built without CUDA.
#include "core/cuda_runtime.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda {

namespace {
[[noreturn]] void no_cuda() { unsupported("built without CUDA"); }
}  // namespace

bool built_with_cuda() noexcept { return false; }
int device_count() { return 0; }
DeviceScope::DeviceScope(int) { no_cuda(); }
DeviceScope::~DeviceScope() = default;
const DeviceProperties& device_properties(int) { no_cuda(); }
std::string device_name(int) { no_cuda(); }
void* device_allocate(int, std::size_t) { no_cuda(); }
void device_free(int, void*) noexcept {}
MemoryUse memory_use(int) { no_cuda(); }
void reset_memory_peaks(int) { no_cuda(); }
void* stream_allocate(int, void*, std::size_t) { no_cuda(); }
void stream_free(int, void*, void*) noexcept {}
void memcpy_bytes(void*, const void*, std::size_t, int) { no_cuda(); }
void memcpy_bytes_async(void*, const void*, std::size_t, int, int, void*) { no_cuda(); }
bool host_register(void*, std::size_t) noexcept { return false; }
void host_unregister(void*) noexcept {}
void synchronize(int, void*) { no_cuda(); }
std::vector<double> time_calls_ms(int, void*, const std::function<void()>&, int, int, CallTiming) { no_cuda(); }

}  // namespace spk::detail::cuda
