#pragma once
// Sparse 3-way tensors: COO (what readers return), CSF (what the tensor kernels walk; see
// tensor.hpp) and the semi-sparse result of a tensor-times-matrix product.
#include <array>
#include <type_traits>
#include <vector>

#include "spk/matrix.hpp"

namespace spk {

// Host COO: entry p is (idx[0][p], idx[1][p], idx[2][p]) -> values[p], 0-based.
template <class V, class I>
struct CooTensor3 {
    std::array<index_t, 3> dims{0, 0, 0};
    std::array<std::vector<I>, 3> idx;
    std::vector<V> values;
    index_t nnz() const { return static_cast<index_t>(values.size()); }
};

// Compressed sparse fiber for one mode order: order[0] is the root mode, order[1] the middle
// mode, order[2] the leaf mode. Slice s holds one root index (slice_ids[s]) and the fibers
// slice_ptr[s] .. slice_ptr[s+1]; fiber f holds one middle index (fiber_ids[f]) and the
// non-zeros fiber_ptr[f] .. fiber_ptr[f+1], each a leaf index and a value. Ids are strictly
// increasing within their parent and no slice or fiber is empty. Offsets use I, so more than
// 2^31 - 1 non-zeros need I = int64_t.
template <class V, class I>
struct CsfView {
    std::array<index_t, 3> dims{0, 0, 0};  // the tensor's dims, indexed by tensor mode
    std::array<int, 3> order{0, 1, 2};
    index_t slices = 0, fibers = 0, nnz = 0;
    const I* slice_ids = nullptr;  // slices
    const I* slice_ptr = nullptr;  // slices + 1
    const I* fiber_ids = nullptr;  // fibers
    const I* fiber_ptr = nullptr;  // fibers + 1
    const I* leaf_ids = nullptr;   // nnz
    V* values = nullptr;           // nnz
    MemorySpace space = MemorySpace::host();

    operator CsfView<const V, I>() const noexcept requires(!std::is_const_v<V>) {
        return {dims, order, slices, fibers, nnz, slice_ids, slice_ptr, fiber_ids, fiber_ptr, leaf_ids, values, space};
    }
};

template <class V, class I>
class Csf {
public:
    Csf() = default;
    // From host arrays that already form a CSF (to_csf builds them; nothing here re-checks them).
    Csf(const Executor& exec, std::array<index_t, 3> dims, std::array<int, 3> order, const std::vector<I>& slice_ids,
        const std::vector<I>& slice_ptr, const std::vector<I>& fiber_ids, const std::vector<I>& fiber_ptr, const std::vector<I>& leaf_ids,
        const std::vector<V>& values);

    const std::array<index_t, 3>& dims() const { return dims_; }
    const std::array<int, 3>& order() const { return order_; }
    index_t slices() const { return static_cast<index_t>(slice_ids_.size()); }
    index_t fibers() const { return static_cast<index_t>(fiber_ids_.size()); }
    index_t nnz() const { return static_cast<index_t>(values_.size()); }
    const Array<I>& slice_ids() const { return slice_ids_; }
    const Array<I>& slice_ptr() const { return slice_ptr_; }
    const Array<I>& fiber_ids() const { return fiber_ids_; }
    const Array<I>& fiber_ptr() const { return fiber_ptr_; }
    const Array<I>& leaf_ids() const { return leaf_ids_; }
    Array<V>& values() { return values_; }
    const Array<V>& values() const { return values_; }
    CsfView<V, I> view();
    CsfView<const V, I> view() const;
    // A copy in exec's memory space.
    Csf to(const Executor& exec) const;

private:
    std::array<index_t, 3> dims_{0, 0, 0};
    std::array<int, 3> order_{0, 1, 2};
    Array<I> slice_ids_, slice_ptr_, fiber_ids_, fiber_ptr_, leaf_ids_;
    Array<V> values_;
};

// COO to CSF (host) for the mode order `order` (a permutation of 0, 1, 2). Entries are sorted by
// that order; duplicates are summed or rejected. Throws InvalidArgument naming the bad entry
// (index outside dims, repeated coordinates when rejecting) or argument (index arrays whose
// lengths differ from values, a bad order, more non-zeros than I can count).
template <class V, class I>
Csf<V, I> to_csf(const CooTensor3<V, I>& x, std::array<int, 3> order, Duplicates dup = Duplicates::sum);

// The result of Y = X x_n U (TTM, tensor.hpp): dense along mode n, sparse along the other two.
// Fiber f is the vector Y(.., :, ..) at coordinates fiber_idx[0][f] (mode sparse_modes[0]) and
// fiber_idx[1][f] (mode sparse_modes[1]); its values are row f of `values`. Only the fibers
// where X has a non-zero are stored, in increasing coordinate order.
template <class V, class I>
struct SemiSparseTensor3 {
    std::array<index_t, 3> dims{0, 0, 0};   // Y's dims: dims[mode] is the rank R of U
    int mode = 0;                           // the dense mode n
    std::array<int, 2> sparse_modes{1, 2};  // the other two modes, ascending
    std::array<Array<I>, 2> fiber_idx;
    Dense<V> values;  // fibers x R, row-major
    index_t fibers() const { return static_cast<index_t>(fiber_idx[0].size()); }
};

}  // namespace spk
