// cuSPARSE's CSR SpMM as the benchmark baseline: every algorithm that accepts the case, with
// ALG3's preprocessing timed apart from the product.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>

#include "baselines/baselines.hpp"
#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

namespace {

template <class V>
cudaDataType data_type();
template <>
cudaDataType data_type<float>() {
    return CUDA_R_32F;
}
template <>
cudaDataType data_type<double>() {
    return CUDA_R_64F;
}
template <>
cudaDataType data_type<f16>() {
    return CUDA_R_16F;
}
template <>
cudaDataType data_type<bf16>() {
    return CUDA_R_16BF;
}

template <class V>
using scalar_t = std::conditional_t<std::is_same_v<V, double>, double, float>;

std::string status_text(cusparseStatus_t s) { return cusparseGetErrorString(s); }

// RAII for the handle and descriptors, so a refused algorithm leaks nothing.
struct Session {
    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t a = nullptr;
    cusparseDnMatDescr_t b = nullptr, c = nullptr;
    ~Session() {
        if (a) cusparseDestroySpMat(a);
        if (b) cusparseDestroyDnMat(b);
        if (c) cusparseDestroyDnMat(c);
        if (handle) cusparseDestroy(handle);
    }
};

void check(cusparseStatus_t s, const char* what) {
    if (s != CUSPARSE_STATUS_SUCCESS) throw_error(ErrorKind::Device, std::string(what) + " failed: " + status_text(s));
}

}  // namespace

template <class V, class I>
std::vector<Timing> cusparse_spmm(const Executor& exec, CsrView<const V, I> a, DenseView<const V> b, DenseView<V> c, int warmup, int reps) {
    using S = scalar_t<V>;
    Session s;
    check(cusparseCreate(&s.handle), "cusparseCreate");
    check(cusparseSetStream(s.handle, static_cast<cudaStream_t>(exec.stream())), "cusparseSetStream");
    const cusparseIndexType_t index = sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    check(cusparseCreateCsr(&s.a, a.rows, a.cols, a.nnz, const_cast<I*>(a.row_ptr), const_cast<I*>(a.col_idx), const_cast<V*>(a.values),
                            index, index, CUSPARSE_INDEX_BASE_ZERO, data_type<V>()),
          "cusparseCreateCsr");
    const auto order = [](Layout l) { return l == Layout::row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL; };
    check(cusparseCreateDnMat(&s.b, b.rows, b.cols, b.ld, const_cast<V*>(b.data), data_type<V>(), order(b.layout)),
          "cusparseCreateDnMat(B)");
    check(cusparseCreateDnMat(&s.c, c.rows, c.cols, c.ld, c.data, data_type<V>(), order(c.layout)), "cusparseCreateDnMat(C)");
    const S alpha = 1, beta = 0;
    const cudaDataType compute = std::is_same_v<V, double> ? CUDA_R_64F : CUDA_R_32F;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;

    std::vector<Timing> out;
    const std::pair<const char*, cusparseSpMMAlg_t> algs[] = {{"cusparse.default", CUSPARSE_SPMM_ALG_DEFAULT},
                                                              {"cusparse.alg1", CUSPARSE_SPMM_CSR_ALG1},
                                                              {"cusparse.alg2", CUSPARSE_SPMM_CSR_ALG2},
                                                              {"cusparse.alg3", CUSPARSE_SPMM_CSR_ALG3}};
    for (const auto& [name, alg] : algs) {
        Timing t{name};
        std::size_t bytes = 0;
        cusparseStatus_t st = cusparseSpMM_bufferSize(s.handle, op, op, &alpha, s.a, s.b, &beta, s.c, compute, alg, &bytes);
        if (st != CUSPARSE_STATUS_SUCCESS) {
            t.note = "bufferSize: " + status_text(st);
            out.push_back(t);
            continue;
        }
        void* buffer = nullptr;
        if (bytes) SPK_CUDA_CHECK(cudaMalloc(&buffer, bytes));
        try {
            if (alg == CUSPARSE_SPMM_CSR_ALG3) {
                t.preprocess_ms = time_device_ms(
                    exec,
                    [&] {
                        check(cusparseSpMM_preprocess(s.handle, op, op, &alpha, s.a, s.b, &beta, s.c, compute, alg, buffer), "preprocess");
                    },
                    0, 1);
            }
            st = cusparseSpMM(s.handle, op, op, &alpha, s.a, s.b, &beta, s.c, compute, alg, buffer);
            if (st != CUSPARSE_STATUS_SUCCESS)
                t.note = "SpMM: " + status_text(st);
            else {
                t.ms = time_device_ms(
                    exec,
                    [&] { check(cusparseSpMM(s.handle, op, op, &alpha, s.a, s.b, &beta, s.c, compute, alg, buffer), "cusparseSpMM"); },
                    warmup, reps);
                t.ok = true;
            }
        } catch (const Error& e) {
            t.note = e.what();
        }
        if (buffer) cudaFree(buffer);
        out.push_back(t);
    }
    return out;
}

#define SPK_INSTANTIATE(V, I) \
    template std::vector<Timing> cusparse_spmm(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<V>, int, int);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::baselines
