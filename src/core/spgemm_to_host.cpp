// SpGEMM in chunks of C's rows (out of core): one symbolic phase over all rows gives C's row
// offsets, which cut the rows into chunks whose share of C fits half the memory budget (the other
// half is left to the chunk's own workspaces); each chunk is a product of A's rows (their offsets
// rebased to start at 0) with all of B, copied to host memory when it completes. On a device, C's
// host arrays are page-locked for the copies, which run on the executor's stream.
#include <algorithm>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "spk/spgemm.hpp"

namespace spk {

namespace {

template <class I>
std::vector<I> host_offsets(const I* row_ptr, index_t rows, MemorySpace space) {
    std::vector<I> out(static_cast<std::size_t>(rows) + 1);
    copy_bytes(out.data(), MemorySpace::host(), row_ptr, space, out.size() * sizeof(I));
    return out;
}

// Rows [r0, r1) of a CSR whose offsets are `ptr` (on the host), with those offsets rebased to 0
// and uploaded to exec (held in `storage`).
template <class V, class I>
CsrView<const V, I> row_range(const Executor& exec, CsrView<const V, I> m, const std::vector<I>& ptr, index_t r0, index_t r1,
                              Array<I>& storage) {
    std::vector<I> rebased(ptr.begin() + r0, ptr.begin() + r1 + 1);
    const I first = rebased.front();
    for (I& v : rebased) v -= first;
    storage = Array<I>(exec, rebased);
    const auto off = static_cast<std::size_t>(first);
    return CsrView<const V, I>{r1 - r0,         m.cols,  static_cast<index_t>(rebased.back()), storage.data(), m.col_idx + off,
                               m.values ? m.values + off : nullptr, m.space, m.sorted};
}

// Host memory page-locked for the life of the object where the driver allows it (copies from the
// device then run at full bandwidth, without the driver's staging through its own pinned buffers).
class PinnedRange {
public:
    PinnedRange(void* ptr, std::size_t bytes) : ptr_(ptr), pinned_(detail::cuda::host_register(ptr, bytes)) {}
    ~PinnedRange() {
        if (pinned_) detail::cuda::host_unregister(ptr_);
    }
    PinnedRange(const PinnedRange&) = delete;
    PinnedRange& operator=(const PinnedRange&) = delete;

private:
    void* ptr_;
    bool pinned_;
};

// count entries of T from `from` (on exec) into host memory: on the executor's stream where it is
// a device (the caller waits), else a plain copy.
template <class T>
void copy_to_host(const Executor& exec, T* to, const T* from, MemorySpace from_space, index_t count) {
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(count);
    if (exec.backend() == Backend::cuda && bytes > 0)
        detail::cuda::memcpy_bytes_async(to, from, bytes, 1, exec.device(), exec.stream());
    else
        copy_bytes(to, MemorySpace::host(), from, from_space, bytes);
}

std::size_t default_budget(const Executor& exec) {
    if (exec.backend() == Backend::cuda) return detail::cuda::device_properties(exec.device()).global_bytes / 4;
    return 0;  // host executors: no chunking
}

}  // namespace

template <class V, class I>
Csr<V, I> spgemm_to_host(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, const SpgemmOptions& options,
                         std::optional<CsrView<const V, I>> mask) {
    const std::size_t budget = options.memory_budget ? options.memory_budget : default_budget(exec);
    if (budget == 0) return spgemm(exec, a, b, options, mask);

    const std::vector<index_t> c_ptr = SpgemmPlan<V, I>(exec, a, b, options, mask).row_offsets();
    const index_t rows = a.rows, nnz = c_ptr.back();
    const std::vector<I> a_ptr = host_offsets(a.row_ptr, rows, a.space);
    const std::vector<I> m_ptr = mask ? host_offsets(mask->row_ptr, rows, mask->space) : std::vector<I>{};
    Csr<V, I> c(Executor::cpu(), rows, b.cols, nnz);
    std::transform(c_ptr.begin(), c_ptr.end(), c.row_ptr().data(), [](index_t v) { return static_cast<I>(v); });

    const bool device = exec.backend() == Backend::cuda;
    const PinnedRange pinned_cols(device ? c.col_idx().data() : nullptr, sizeof(I) * static_cast<std::size_t>(nnz));
    const PinnedRange pinned_values(device ? c.values().data() : nullptr, sizeof(V) * static_cast<std::size_t>(nnz));
    const double entry_bytes = sizeof(I) + sizeof(V);
    const double share = static_cast<double>(budget) / 2;
    for (index_t r0 = 0; r0 < rows;) {
        index_t r1 = r0 + 1;  // at least one row, whatever its size
        while (r1 < rows && static_cast<double>(c_ptr[r1 + 1] - c_ptr[r0]) * entry_bytes + static_cast<double>(r1 + 1 - r0) * sizeof(I) <= share)
            ++r1;
        Array<I> a_rows, m_rows;
        const CsrView<const V, I> sub_a = row_range(exec, a, a_ptr, r0, r1, a_rows);
        std::optional<CsrView<const V, I>> sub_m;
        if (mask) sub_m = row_range(exec, *mask, m_ptr, r0, r1, m_rows);
        const Csr<V, I> part = spgemm(exec, sub_a, b, options, sub_m);
        const index_t count = c_ptr[r1] - c_ptr[r0];
        if (part.nnz() != count)
            throw_error(ErrorKind::Device, "spgemm_to_host: rows " + std::to_string(r0) + ".." + std::to_string(r1) + " gave " +
                                               std::to_string(part.nnz()) + " entries, the symbolic phase counted " + std::to_string(count));
        const auto at = static_cast<std::size_t>(c_ptr[r0]);
        copy_to_host(exec, c.col_idx().data() + at, part.col_idx().data(), part.col_idx().space(), count);
        copy_to_host(exec, c.values().data() + at, part.values().data(), part.values().space(), count);
        exec.synchronize();  // the copies are done before `part` is freed
        c.set_sorted(part.sorted());
        r0 = r1;
    }
    if (rows == 0) c.set_sorted(options.sorted);
    return c;
}

#define SPK_INSTANTIATE(V, I)                                                                                          \
    template Csr<V, I> spgemm_to_host(const Executor&, CsrView<const V, I>, CsrView<const V, I>, const SpgemmOptions&, \
                                      std::optional<CsrView<const V, I>>);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
