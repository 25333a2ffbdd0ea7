// cuSPARSE's SDDMM as the benchmark baseline (f32, CUSPARSE_SDDMM_ALG_DEFAULT): the output is a
// CSR matrix with A's pattern whose values are overwritten with <X_i, Y_j>. cuSPARSE computes
// (X·Yᵀ) ∘ spy(A), so unlike spk's sddmm with scale_by_a it does not read A's values; the timing
// is of the same traffic otherwise. Y (cols x K) is handed over as Yᵀ (K x cols) in the opposite
// layout, which is the same memory.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>

#include "baselines/baselines.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

namespace {

// RAII for the handle, descriptors and buffer, so a refusal leaks nothing.
struct SddmmSession {
    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t c = nullptr;
    cusparseDnMatDescr_t x = nullptr, yt = nullptr;
    void* buffer = nullptr;
    ~SddmmSession() {
        if (buffer) cudaFree(buffer);
        if (c) cusparseDestroySpMat(c);
        if (x) cusparseDestroyDnMat(x);
        if (yt) cusparseDestroyDnMat(yt);
        if (handle) cusparseDestroy(handle);
    }
};

void check_status(cusparseStatus_t s, const char* what) {
    if (s != CUSPARSE_STATUS_SUCCESS) throw_error(ErrorKind::Device, std::string(what) + " failed: " + cusparseGetErrorString(s));
}

cusparseOrder_t order_of(Layout l) { return l == Layout::row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL; }

}  // namespace

template <class I>
std::vector<Timing> cusparse_sddmm(const Executor& exec, CsrView<const float, I> a, DenseView<const float> x, DenseView<const float> y,
                                   float* out_values, int warmup, int reps) {
    Timing t{"cusparse.sddmm.default"};
    t.note = "computes (X Yt) o spy(A): A's values not read";
    try {
        SddmmSession s;
        check_status(cusparseCreate(&s.handle), "cusparseCreate");
        check_status(cusparseSetStream(s.handle, static_cast<cudaStream_t>(exec.stream())), "cusparseSetStream");
        const cusparseIndexType_t index = sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
        check_status(cusparseCreateCsr(&s.c, a.rows, a.cols, a.nnz, const_cast<I*>(a.row_ptr), const_cast<I*>(a.col_idx), out_values, index,
                                       index, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                     "cusparseCreateCsr(C)");
        check_status(cusparseCreateDnMat(&s.x, x.rows, x.cols, x.ld, const_cast<float*>(x.data), CUDA_R_32F, order_of(x.layout)),
                     "cusparseCreateDnMat(X)");
        const Layout yt_layout = y.layout == Layout::row_major ? Layout::col_major : Layout::row_major;
        check_status(cusparseCreateDnMat(&s.yt, y.cols, y.rows, y.ld, const_cast<float*>(y.data), CUDA_R_32F, order_of(yt_layout)),
                     "cusparseCreateDnMat(Yt)");
        const float alpha = 1, beta = 0;
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        const auto alg = CUSPARSE_SDDMM_ALG_DEFAULT;
        std::size_t bytes = 0;
        check_status(cusparseSDDMM_bufferSize(s.handle, op, op, &alpha, s.x, s.yt, &beta, s.c, CUDA_R_32F, alg, &bytes),
                     "cusparseSDDMM_bufferSize");
        if (bytes) SPK_CUDA_CHECK(cudaMalloc(&s.buffer, bytes));
        t.preprocess_ms = time_device_ms(
            exec,
            [&] {
                check_status(cusparseSDDMM_preprocess(s.handle, op, op, &alpha, s.x, s.yt, &beta, s.c, CUDA_R_32F, alg, s.buffer),
                             "cusparseSDDMM_preprocess");
            },
            0, 1);
        t.ms = time_device_ms(
            exec,
            [&] {
                check_status(cusparseSDDMM(s.handle, op, op, &alpha, s.x, s.yt, &beta, s.c, CUDA_R_32F, alg, s.buffer), "cusparseSDDMM");
            },
            warmup, reps);
        t.ok = true;
    } catch (const Error& e) {
        t.note = e.what();
    }
    return {t};
}

template std::vector<Timing> cusparse_sddmm(const Executor&, CsrView<const float, std::int32_t>, DenseView<const float>,
                                            DenseView<const float>, float*, int, int);
template std::vector<Timing> cusparse_sddmm(const Executor&, CsrView<const float, std::int64_t>, DenseView<const float>,
                                            DenseView<const float>, float*, int, int);

}  // namespace spk::baselines
