// CSF construction from COO: check, sort by the mode order, merge duplicates, compress two levels.
#include <algorithm>
#include <limits>
#include <string>

#include "core/instantiate.hpp"
#include "spk/error.hpp"
#include "spk/sparse_tensor.hpp"

namespace spk {

template <class V, class I>
Csf<V, I>::Csf(const Executor& exec, std::array<index_t, 3> dims, std::array<int, 3> order, const std::vector<I>& slice_ids,
               const std::vector<I>& slice_ptr, const std::vector<I>& fiber_ids, const std::vector<I>& fiber_ptr,
               const std::vector<I>& leaf_ids, const std::vector<V>& values)
    : dims_(dims),
      order_(order),
      slice_ids_(exec, slice_ids),
      slice_ptr_(exec, slice_ptr),
      fiber_ids_(exec, fiber_ids),
      fiber_ptr_(exec, fiber_ptr),
      leaf_ids_(exec, leaf_ids),
      values_(exec, values) {
    if (slice_ptr.size() != slice_ids.size() + 1 || fiber_ptr.size() != fiber_ids.size() + 1 || leaf_ids.size() != values.size())
        invalid_argument(
            "Csf: array lengths do not fit together (slice_ptr must have slices + 1 entries, fiber_ptr fibers + 1, "
            "leaf_ids as many as values)");
}

template <class V, class I>
CsfView<V, I> Csf<V, I>::view() {
    return {dims_,
            order_,
            slices(),
            fibers(),
            nnz(),
            slice_ids_.data(),
            slice_ptr_.data(),
            fiber_ids_.data(),
            fiber_ptr_.data(),
            leaf_ids_.data(),
            values_.data(),
            slice_ptr_.space()};
}

template <class V, class I>
CsfView<const V, I> Csf<V, I>::view() const {
    // The same fields as view(), read-only: view() does not modify the tensor.
    return const_cast<Csf*>(this)->view();
}

template <class V, class I>
Csf<V, I> Csf<V, I>::to(const Executor& exec) const {
    Csf out;
    out.dims_ = dims_;
    out.order_ = order_;
    out.slice_ids_ = slice_ids_.to(exec);
    out.slice_ptr_ = slice_ptr_.to(exec);
    out.fiber_ids_ = fiber_ids_.to(exec);
    out.fiber_ptr_ = fiber_ptr_.to(exec);
    out.leaf_ids_ = leaf_ids_.to(exec);
    out.values_ = values_.to(exec);
    return out;
}

namespace {

template <class I>
std::string coordinates(const std::array<std::vector<I>, 3>& idx, std::size_t p) {
    return "(" + std::to_string(idx[0][p]) + ", " + std::to_string(idx[1][p]) + ", " + std::to_string(idx[2][p]) + ")";
}

template <class V, class I>
void check_coo(const CooTensor3<V, I>& x, const std::array<int, 3>& order) {
    std::array<bool, 3> seen{false, false, false};
    for (int m : order) {
        if (m < 0 || m > 2 || seen[static_cast<std::size_t>(m)])
            invalid_argument("to_csf: order (" + std::to_string(order[0]) + ", " + std::to_string(order[1]) + ", " +
                             std::to_string(order[2]) + ") is not a permutation of the modes 0, 1, 2");
        seen[static_cast<std::size_t>(m)] = true;
    }
    for (int m = 0; m < 3; ++m) {
        if (x.dims[m] < 0) invalid_argument("X: dims[" + std::to_string(m) + "] is negative (" + std::to_string(x.dims[m]) + ")");
        if (x.idx[m].size() != x.values.size())
            invalid_argument("X: idx[" + std::to_string(m) + "] has " + std::to_string(x.idx[m].size()) + " entries but there are " +
                             std::to_string(x.values.size()) + " values");
    }
    if (x.values.size() > static_cast<std::size_t>(std::numeric_limits<I>::max()))
        invalid_argument("X: " + std::to_string(x.values.size()) + " non-zeros do not fit the index type (use int64_t indices)");
    for (std::size_t p = 0; p < x.values.size(); ++p)
        for (int m = 0; m < 3; ++m) {
            const index_t i = static_cast<index_t>(x.idx[m][p]);
            if (i < 0 || i >= x.dims[m])
                invalid_argument("X: entry " + std::to_string(p) + " at " + coordinates(x.idx, p) + ": index " + std::to_string(i) +
                                 " of mode " + std::to_string(m) + " is outside 0.." + std::to_string(x.dims[m] - 1));
        }
}

// One entry in the order's coordinates; the original position breaks ties so that duplicates
// are summed in input order.
template <class I>
struct SortKey {
    I root, middle, leaf, position;
    friend bool operator<(const SortKey& a, const SortKey& b) {
        if (a.root != b.root) return a.root < b.root;
        if (a.middle != b.middle) return a.middle < b.middle;
        if (a.leaf != b.leaf) return a.leaf < b.leaf;
        return a.position < b.position;
    }
};

}  // namespace

template <class V, class I>
Csf<V, I> to_csf(const CooTensor3<V, I>& x, std::array<int, 3> order, Duplicates dup) {
    check_coo(x, order);
    const std::size_t n = x.values.size();
    const auto& root = x.idx[static_cast<std::size_t>(order[0])];
    const auto& middle = x.idx[static_cast<std::size_t>(order[1])];
    const auto& leaf = x.idx[static_cast<std::size_t>(order[2])];
    std::vector<SortKey<I>> keys(n);
    for (std::size_t p = 0; p < n; ++p) keys[p] = {root[p], middle[p], leaf[p], static_cast<I>(p)};
    std::sort(keys.begin(), keys.end());

    std::vector<I> slice_ids, slice_ptr, fiber_ids, fiber_ptr, leaf_ids;
    std::vector<V> values;
    std::vector<double> sums;  // duplicates are summed in double, rounded once
    leaf_ids.reserve(n);
    sums.reserve(n);
    for (std::size_t q = 0; q < n; ++q) {
        const SortKey<I>& k = keys[q];
        const bool new_slice = q == 0 || k.root != keys[q - 1].root;
        const bool new_fiber = new_slice || k.middle != keys[q - 1].middle;
        const bool new_entry = new_fiber || k.leaf != keys[q - 1].leaf;
        if (new_slice) {
            slice_ids.push_back(k.root);
            slice_ptr.push_back(static_cast<I>(fiber_ids.size()));
        }
        if (new_fiber) {
            fiber_ids.push_back(k.middle);
            fiber_ptr.push_back(static_cast<I>(leaf_ids.size()));
        }
        const double v = value_cast<double>(x.values[static_cast<std::size_t>(k.position)]);
        if (new_entry) {
            leaf_ids.push_back(k.leaf);
            sums.push_back(v);
        } else if (dup == Duplicates::reject) {
            const auto first = static_cast<std::size_t>(keys[q - 1].position), again = static_cast<std::size_t>(k.position);
            invalid_argument("X: entries " + std::to_string(first) + " and " + std::to_string(again) + " repeat the coordinates " +
                             coordinates(x.idx, again));
        } else {
            sums.back() += v;
        }
    }
    slice_ptr.push_back(static_cast<I>(fiber_ids.size()));
    fiber_ptr.push_back(static_cast<I>(leaf_ids.size()));
    values.reserve(sums.size());
    for (double s : sums) values.push_back(value_cast<V>(s));
    return Csf<V, I>(Executor::cpu(), x.dims, order, slice_ids, slice_ptr, fiber_ids, fiber_ptr, leaf_ids, values);
}

#define SPK_INSTANTIATE(V, I) \
    template class Csf<V, I>; \
    template Csf<V, I> to_csf(const CooTensor3<V, I>&, std::array<int, 3>, Duplicates);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
