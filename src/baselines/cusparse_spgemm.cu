// cuSPARSE's SpGEMM as the benchmark baseline: ALG1, ALG2 and ALG3 timed over the whole product
// (descriptors, work estimation, memory estimation, compute, copy, buffers), and the structure
// reuse API's numeric step (cusparseSpGEMMreuse_compute) timed alone. Peak bytes count the
// library's buffers and C's arrays alive at the same time.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "baselines/baselines.hpp"
#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

namespace {

// A refused call: its status goes into the timing's note.
struct Refused {
    std::string what;
};

void check(cusparseStatus_t s, const char* what) {
    if (s != CUSPARSE_STATUS_SUCCESS) throw Refused{std::string(what) + ": " + cusparseGetErrorString(s)};
}

// Device buffers with a running and a peak byte count.
class Buffers {
public:
    Buffers() = default;
    Buffers(const Buffers&) = delete;
    Buffers& operator=(const Buffers&) = delete;
    ~Buffers() {
        for (void* p : live_) cudaFree(p);
    }
    void* get(std::size_t bytes) {
        if (bytes == 0) return nullptr;
        void* p = nullptr;
        SPK_CUDA_CHECK(cudaMalloc(&p, bytes));
        live_.push_back(p);
        sizes_.push_back(bytes);
        current_ += bytes;
        peak_ = std::max(peak_, current_);
        return p;
    }
    void release(void* p) {
        const auto it = std::find(live_.begin(), live_.end(), p);
        if (it == live_.end()) return;
        const auto k = static_cast<std::size_t>(it - live_.begin());
        cudaFree(p);
        current_ -= sizes_[k];
        live_.erase(it);
        sizes_.erase(sizes_.begin() + static_cast<std::ptrdiff_t>(k));
    }
    std::size_t peak() const { return peak_; }

private:
    std::vector<void*> live_;
    std::vector<std::size_t> sizes_;
    std::size_t current_ = 0, peak_ = 0;
};

// One cuSPARSE handle for all the timed products: a user creates it once, so its creation (and the
// destruction, which waits for the device) is no part of a product's time.
struct Handle {
    cusparseHandle_t handle = nullptr;
    explicit Handle(const Executor& exec) {
        check(cusparseCreate(&handle), "cusparseCreate");
        const cusparseStatus_t status = cusparseSetStream(handle, static_cast<cudaStream_t>(exec.stream()));
        if (status != CUSPARSE_STATUS_SUCCESS) cusparseDestroy(handle);
        check(status, "cusparseSetStream");
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { cusparseDestroy(handle); }
};

template <class V, class I>
struct Product {
    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t a = nullptr, b = nullptr, c = nullptr;
    cusparseSpGEMMDescr_t spgemm = nullptr;
    Buffers buffers;
    Product(cusparseHandle_t h, CsrView<const V, I> av, CsrView<const V, I> bv) : handle(h) {
        const cusparseIndexType_t index = sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
        const cudaDataType type = std::is_same_v<V, double> ? CUDA_R_64F : CUDA_R_32F;
        check(cusparseCreateCsr(&a, av.rows, av.cols, av.nnz, const_cast<I*>(av.row_ptr), const_cast<I*>(av.col_idx),
                                const_cast<V*>(av.values), index, index, CUSPARSE_INDEX_BASE_ZERO, type),
              "cusparseCreateCsr(A)");
        check(cusparseCreateCsr(&b, bv.rows, bv.cols, bv.nnz, const_cast<I*>(bv.row_ptr), const_cast<I*>(bv.col_idx),
                                const_cast<V*>(bv.values), index, index, CUSPARSE_INDEX_BASE_ZERO, type),
              "cusparseCreateCsr(B)");
        check(cusparseCreateCsr(&c, av.rows, bv.cols, 0, nullptr, nullptr, nullptr, index, index, CUSPARSE_INDEX_BASE_ZERO, type),
              "cusparseCreateCsr(C)");
        check(cusparseSpGEMM_createDescr(&spgemm), "cusparseSpGEMM_createDescr");
    }
    Product(const Product&) = delete;
    Product& operator=(const Product&) = delete;
    ~Product() {
        if (spgemm) cusparseSpGEMM_destroyDescr(spgemm);
        if (a) cusparseDestroySpMat(a);
        if (b) cusparseDestroySpMat(b);
        if (c) cusparseDestroySpMat(c);
    }
    // Allocates C's arrays once its size is known and hands them to the descriptor.
    void allocate_c(index_t rows) {
        std::int64_t r = 0, cols = 0, nnz = 0;
        check(cusparseSpMatGetSize(c, &r, &cols, &nnz), "cusparseSpMatGetSize");
        void* ptr = buffers.get(sizeof(I) * static_cast<std::size_t>(rows + 1));
        void* col = buffers.get(sizeof(I) * static_cast<std::size_t>(nnz));
        void* val = buffers.get(sizeof(V) * static_cast<std::size_t>(nnz));
        check(cusparseCsrSetPointers(c, ptr, col, val), "cusparseCsrSetPointers");
    }
};

constexpr auto kOp = CUSPARSE_OPERATION_NON_TRANSPOSE;

template <class V>
cudaDataType compute_type() {
    return std::is_same_v<V, double> ? CUDA_R_64F : CUDA_R_32F;
}

// The whole product with one algorithm; returns the peak bytes.
template <class V, class I>
std::size_t full_product(const Executor& exec, cusparseHandle_t handle, CsrView<const V, I> a, CsrView<const V, I> b, cusparseSpGEMMAlg_t alg) {
    Product<V, I> p(handle, a, b);
    const V alpha = 1, beta = 0;
    const cudaDataType type = compute_type<V>();
    std::size_t bytes1 = 0, bytes2 = 0, bytes3 = 0;
    check(cusparseSpGEMM_workEstimation(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm, &bytes1, nullptr),
          "workEstimation");
    void* buffer1 = p.buffers.get(bytes1);
    check(cusparseSpGEMM_workEstimation(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm, &bytes1, buffer1),
          "workEstimation");
    if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
        const float chunk_fraction = 0.2f;  // ALG3 computes C in chunks of this share of the products
        check(cusparseSpGEMM_estimateMemory(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm, chunk_fraction, &bytes3,
                                            nullptr, nullptr),
              "estimateMemory");
        void* buffer3 = p.buffers.get(bytes3);
        check(cusparseSpGEMM_estimateMemory(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm, chunk_fraction, &bytes3,
                                            buffer3, &bytes2),
              "estimateMemory");
        p.buffers.release(buffer3);
    } else {
        check(cusparseSpGEMM_compute(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm, &bytes2, nullptr), "compute");
    }
    void* buffer2 = p.buffers.get(bytes2);
    check(cusparseSpGEMM_compute(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm, &bytes2, buffer2), "compute");
    p.allocate_c(a.rows);
    check(cusparseSpGEMM_copy(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm), "copy");
    SPK_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(exec.stream())));
    return p.buffers.peak();
}

// The structure-reuse API: pattern set up once (untimed), then reuse_compute timed.
template <class V, class I>
Timing reuse_product(const Executor& exec, cusparseHandle_t handle, CsrView<const V, I> a, CsrView<const V, I> b, int warmup, int reps) {
    Timing t{"cusparse.spgemm.reuse"};
    Product<V, I> p(handle, a, b);
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    std::size_t bytes1 = 0, bytes2 = 0, bytes3 = 0, bytes4 = 0, bytes5 = 0;
    check(cusparseSpGEMMreuse_workEstimation(p.handle, kOp, kOp, p.a, p.b, p.c, alg, p.spgemm, &bytes1, nullptr), "reuse_workEstimation");
    void* buffer1 = p.buffers.get(bytes1);
    check(cusparseSpGEMMreuse_workEstimation(p.handle, kOp, kOp, p.a, p.b, p.c, alg, p.spgemm, &bytes1, buffer1), "reuse_workEstimation");
    check(cusparseSpGEMMreuse_nnz(p.handle, kOp, kOp, p.a, p.b, p.c, alg, p.spgemm, &bytes2, nullptr, &bytes3, nullptr, &bytes4, nullptr),
          "reuse_nnz");
    void* buffer2 = p.buffers.get(bytes2);
    void* buffer3 = p.buffers.get(bytes3);
    void* buffer4 = p.buffers.get(bytes4);
    check(cusparseSpGEMMreuse_nnz(p.handle, kOp, kOp, p.a, p.b, p.c, alg, p.spgemm, &bytes2, buffer2, &bytes3, buffer3, &bytes4, buffer4),
          "reuse_nnz");
    p.buffers.release(buffer1);
    p.buffers.release(buffer2);
    p.allocate_c(a.rows);
    check(cusparseSpGEMMreuse_copy(p.handle, kOp, kOp, p.a, p.b, p.c, alg, p.spgemm, &bytes5, nullptr), "reuse_copy");
    void* buffer5 = p.buffers.get(bytes5);
    check(cusparseSpGEMMreuse_copy(p.handle, kOp, kOp, p.a, p.b, p.c, alg, p.spgemm, &bytes5, buffer5), "reuse_copy");
    p.buffers.release(buffer3);
    const V alpha = 1, beta = 0;
    const cudaDataType type = compute_type<V>();
    t.ms = time_device_ms(
        exec,
        [&] { check(cusparseSpGEMMreuse_compute(p.handle, kOp, kOp, &alpha, p.a, p.b, &beta, p.c, type, alg, p.spgemm), "reuse_compute"); },
        warmup, reps);
    t.peak_bytes = p.buffers.peak();
    t.ok = true;
    return t;
}

}  // namespace

template <class V, class I>
std::vector<Timing> cusparse_spgemm(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, int warmup, int reps) {
    std::vector<Timing> out;
    std::optional<Handle> handle;
    try {
        handle.emplace(exec);
    } catch (const Refused& r) {
        return {Timing{"cusparse.spgemm.alg1", false, 0, 0, r.what}};
    }
    const std::pair<const char*, cusparseSpGEMMAlg_t> algs[] = {
        {"cusparse.spgemm.alg1", CUSPARSE_SPGEMM_ALG1}, {"cusparse.spgemm.alg2", CUSPARSE_SPGEMM_ALG2}, {"cusparse.spgemm.alg3", CUSPARSE_SPGEMM_ALG3}};
    for (const auto& [name, alg] : algs) {
        Timing t{name};
        try {
            t.peak_bytes = full_product(exec, handle->handle, a, b, alg);
            t.ms = time_device_ms(exec, [&] { (void)full_product(exec, handle->handle, a, b, alg); }, warmup, reps);
            t.ok = true;
        } catch (const Refused& r) {
            t.note = r.what;
        } catch (const Error& e) {  // out of device memory, for instance
            t.note = e.what();
        }
        out.push_back(t);
    }
    try {
        out.push_back(reuse_product(exec, handle->handle, a, b, warmup, reps));
    } catch (const Refused& r) {
        out.push_back(Timing{"cusparse.spgemm.reuse", false, 0, 0, r.what});
    } catch (const Error& e) {
        out.push_back(Timing{"cusparse.spgemm.reuse", false, 0, 0, e.what()});
    }
    return out;
}

#define SPK_INSTANTIATE(V, I) template std::vector<Timing> cusparse_spgemm(const Executor&, CsrView<const V, I>, CsrView<const V, I>, int, int);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::baselines
