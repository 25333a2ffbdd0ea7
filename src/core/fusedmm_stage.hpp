#pragma once
// Row-major staging for host kernels that walk contiguous rows: a column-major argument is
// copied into a row-major buffer (inputs) or computed there and copied back (outputs).
// Row-major arguments pass through untouched, so the common case costs nothing.
#include "spk/matrix.hpp"

namespace spk::detail {

template <class V>
class RowMajorInput {
public:
    explicit RowMajorInput(DenseView<const V> v) : view_(v) {
        if (v.layout == Layout::row_major) return;
        if (v.empty()) {
            view_ = {nullptr, v.rows, v.cols, v.cols, Layout::row_major, v.space};
            return;
        }
        copy_ = Dense<V>(Executor::cpu(), v.rows, v.cols);
        DenseView<V> c = copy_.view();
        for (index_t j = 0; j < v.cols; ++j)
            for (index_t i = 0; i < v.rows; ++i) c(i, j) = v(i, j);
        view_ = c;
    }
    DenseView<const V> view() const { return view_; }

private:
    Dense<V> copy_;
    DenseView<const V> view_;
};

template <class V>
class RowMajorOutput {
public:
    explicit RowMajorOutput(DenseView<V> v) : target_(v), view_(v) {
        if (v.layout == Layout::row_major) return;
        if (v.empty()) {
            view_ = {nullptr, v.rows, v.cols, v.cols, Layout::row_major, v.space};
            return;
        }
        copy_ = Dense<V>(Executor::cpu(), v.rows, v.cols);
        view_ = copy_.view();
    }
    DenseView<V> view() const { return view_; }
    // Copies the result into the caller's column-major view (nothing to do when row-major).
    void write_back() const {
        if (target_.layout == Layout::row_major || target_.empty()) return;
        for (index_t j = 0; j < target_.cols; ++j)
            for (index_t i = 0; i < target_.rows; ++i) target_(i, j) = view_(i, j);
    }

private:
    DenseView<V> target_;
    Dense<V> copy_;
    DenseView<V> view_;
};

}  // namespace spk::detail
