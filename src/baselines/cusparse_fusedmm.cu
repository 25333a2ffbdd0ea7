// The unfused FusedMM a user writes today with cuSPARSE, as the baseline of spk's fused kernel
// (f32): per head, scores on A's pattern into an nnz-sized buffer (cusparseSDDMM), one elementwise
// kernel for the edge function and the row softmax, then cusparseSpMM with those weights. The
// scores buffer is one nnz-sized array reused by every head (the least memory this pipeline can
// take); each head has its own descriptors and SDDMM buffer, because a preprocessed buffer is
// bound to the call's descriptors.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "baselines/baselines.hpp"
#include "cuda/common/check.cuh"
#include "spk/array.hpp"

namespace spk::baselines {

namespace {

void check(cusparseStatus_t s, const char* what) {
    if (s != CUSPARSE_STATUS_SUCCESS) throw_error(ErrorKind::Device, std::string(what) + " failed: " + cusparseGetErrorString(s));
}

// --- RAII for cuSPARSE objects, so that a refusal on any path leaks nothing -----------------------
struct HandleDeleter {
    void operator()(cusparseHandle_t h) const noexcept { cusparseDestroy(h); }
};
struct SpMatDeleter {
    void operator()(cusparseSpMatDescr_t d) const noexcept { cusparseDestroySpMat(d); }
};
struct DnMatDeleter {
    void operator()(cusparseDnMatDescr_t d) const noexcept { cusparseDestroyDnMat(d); }
};
using Handle = std::unique_ptr<std::remove_pointer_t<cusparseHandle_t>, HandleDeleter>;
using SpMat = std::unique_ptr<std::remove_pointer_t<cusparseSpMatDescr_t>, SpMatDeleter>;
using DnMat = std::unique_ptr<std::remove_pointer_t<cusparseDnMatDescr_t>, DnMatDeleter>;

Handle make_handle(const Executor& exec) {
    cusparseHandle_t h = nullptr;
    check(cusparseCreate(&h), "cusparseCreate");
    Handle handle(h);
    check(cusparseSetStream(h, static_cast<cudaStream_t>(exec.stream())), "cusparseSetStream");
    return handle;
}

// A's pattern with the given values (the scores buffer, or A's own values).
template <class I>
SpMat csr_descriptor(CsrView<const float, I> a, const float* values) {
    const cusparseIndexType_t index = sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    cusparseSpMatDescr_t d = nullptr;
    check(cusparseCreateCsr(&d, a.rows, a.cols, a.nnz, const_cast<I*>(a.row_ptr), const_cast<I*>(a.col_idx), const_cast<float*>(values),
                            index, index, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
          "cusparseCreateCsr");
    return SpMat(d);
}

DnMat dense_descriptor(DenseView<const float> v, const char* what) {
    cusparseDnMatDescr_t d = nullptr;
    check(cusparseCreateDnMat(&d, v.rows, v.cols, v.ld, const_cast<float*>(v.data), CUDA_R_32F,
                              v.layout == Layout::row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL),
          what);
    return DnMat(d);
}

// Columns [first, first + count) of v: head h's block of a multi-head matrix.
template <class T>
DenseView<T> columns(DenseView<T> v, index_t first, index_t count) {
    const index_t offset = v.layout == Layout::row_major ? first : first * v.ld;
    return {v.data + offset, v.rows, count, v.ld, v.layout, v.space};
}

// vᵀ: the same memory read in the opposite layout.
DenseView<const float> transposed(DenseView<const float> v) {
    return {v.data, v.cols, v.rows, v.ld, v.layout == Layout::row_major ? Layout::col_major : Layout::row_major, v.space};
}

// Element strides of a dense view: (i, j) is at data[i * row + j * col].
struct Strides {
    long long row, col;
};
Strides strides_of(DenseView<const float> v) { return v.layout == Layout::row_major ? Strides{v.ld, 1} : Strides{1, v.ld}; }

// --- the elementwise kernels ------------------------------------------------------------------------

constexpr int kBlock = 256;
constexpr int kWarp = 32;

// out[i * heads + h] = |v_i,h|^2 over the d columns of head h (for neg_sqdist's expansion).
__global__ void squared_norms(long long rows, int heads, long long d, const float* v, Strides s, float* out) {
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t >= rows * heads) return;
    const long long i = t / heads, h = t % heads;
    float sum = 0.0f;
    for (long long k = 0; k < d; ++k) {
        const float value = v[i * s.row + (h * d + k) * s.col];
        sum = fmaf(value, value, sum);
    }
    out[t] = sum;
}

template <class I>
struct EdgeArgs {
    long long rows = 0;
    const I* row_ptr = nullptr;
    const I* col_idx = nullptr;
    const float* source = nullptr;  // dot: SDDMM's <x,y>; neg_sqdist: 2 <x,y>; value: A's values; add: unused
    float* weights = nullptr;       // nnz; may be source (in place)
    const float* x = nullptr;       // add: X(i, head); neg_sqdist: |X_i|^2 as rows x heads
    const float* y = nullptr;       // add: Y(j, head); neg_sqdist: |Y_j|^2 as cols x heads
    Strides xs{0, 0}, ys{0, 0};
    int heads = 1, head = 0;
    Score score = Score::dot;
    Edge edge;
    bool softmax = false, mean = false;
};

__device__ float apply_edge(Edge e, float s) {
    switch (e.kind) {
        case Edge::Kind::identity:
            return s;
        case Edge::Kind::sigmoid:
            return 1.0f / (1.0f + expf(-s));
        case Edge::Kind::exp:
            return expf(s);
        case Edge::Kind::leaky_relu:
            return s > 0.0f ? s : e.param * s;
        case Edge::Kind::tanh:
            return tanhf(s);
        case Edge::Kind::scale:
            return e.param * s;
    }
    return s;
}

template <class I>
__device__ float score_at(const EdgeArgs<I>& a, long long row, long long p) {
    switch (a.score) {
        case Score::dot:
        case Score::value:
            return a.source[p];
        case Score::neg_sqdist: {
            const long long j = a.col_idx[p];
            return a.source[p] - a.x[row * a.heads + a.head] - a.y[j * a.heads + a.head];
        }
        case Score::add: {
            const long long j = a.col_idx[p];
            return a.x[row * a.xs.row + a.head * a.xs.col] + a.y[j * a.ys.row + a.head * a.ys.col];
        }
    }
    return 0.0f;
}

// A warp per row: w = edge(score), then softmax over the row (max, exp, sum, divide) and mean's
// 1/length, each a pass over the row's weights in global memory, as separate kernels would do.
template <class I>
__global__ void edge_softmax(EdgeArgs<I> a) {
    const long long row = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / kWarp;
    const int lane = static_cast<int>(threadIdx.x % kWarp);
    if (row >= a.rows) return;  // the whole warp leaves together
    const long long begin = a.row_ptr[row], end = a.row_ptr[row + 1];
    float row_max = -INFINITY;
    for (long long p = begin + lane; p < end; p += kWarp) {
        const float w = apply_edge(a.edge, score_at(a, row, p));
        a.weights[p] = w;
        row_max = fmaxf(row_max, w);
    }
    float divisor = 1.0f;
    if (a.softmax) {
        for (int o = kWarp / 2; o > 0; o /= 2) row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, o));
        float sum = 0.0f;
        for (long long p = begin + lane; p < end; p += kWarp) {
            const float w = expf(a.weights[p] - row_max);
            a.weights[p] = w;
            sum += w;
        }
        for (int o = kWarp / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
        divisor = sum;
    }
    if (a.mean) divisor *= static_cast<float>(end - begin);
    if (divisor != 1.0f)
        for (long long p = begin + lane; p < end; p += kWarp) a.weights[p] /= divisor;
}

unsigned blocks_for(long long threads) { return static_cast<unsigned>((threads + kBlock - 1) / kBlock); }

// --- the pipeline -------------------------------------------------------------------------------------

constexpr auto kOp = CUSPARSE_OPERATION_NON_TRANSPOSE;
constexpr auto kSddmmAlg = CUSPARSE_SDDMM_ALG_DEFAULT;

// What one head's (or, for weights from A's values, all heads') SDDMM and SpMM read and write.
struct HeadDescriptors {
    DnMat x, yt;   // SDDMM's dense operands (score dot or neg_sqdist)
    SpMat scores;  // SDDMM's output: A's pattern with the scores buffer
    Array<std::byte> sddmm_buffer;
    SpMat weights;                 // SpMM's sparse operand
    DnMat z, e;                    // SpMM's dense operand and output
    Array<std::byte> spmm_buffer;  // ALG3 only: its preprocessing binds the buffer to these descriptors
};

template <class I>
class UnfusedPipeline {
public:
    UnfusedPipeline(const Executor& exec, CsrView<const float, I> a, DenseView<const float> x, DenseView<const float> y,
                    DenseView<const float> z, DenseView<float> e, const FusedOptions& o)
        : exec_(exec), a_(a), x_(x), y_(y), o_(o), handle_(make_handle(exec)) {
        const bool vector_score = o.score == Score::dot || o.score == Score::neg_sqdist;
        sddmm_ = vector_score;
        elementwise_ = o.score == Score::neg_sqdist || o.score == Score::add || o.edge.kind != Edge::Kind::identity ||
                       o.normalize == Normalize::softmax || o.aggregate == Aggregate::mean;
        // Weights from A's values are the same for every head: one pass, one SpMM over all columns.
        passes_ = o.score == Score::value ? 1 : o.heads;
        d_ = vector_score ? x.cols / o.heads : 0;
        const index_t dz = z.cols / passes_;
        if (sddmm_ || elementwise_) {
            scores_ = Array<float>(exec, static_cast<std::size_t>(a.nnz));
            // SDDMM's beta is 0, but never let it meet uninitialised memory.
            if (a.nnz) SPK_CUDA_CHECK(cudaMemsetAsync(scores_.data(), 0, scores_.size() * sizeof(float), stream()));
        }
        if (o.score == Score::neg_sqdist) {
            x_norms_ = Array<float>(exec, static_cast<std::size_t>(a.rows * o.heads));
            y_norms_ = Array<float>(exec, static_cast<std::size_t>(a.cols * o.heads));
        }
        const float* spmm_values = scores_.empty() ? a.values : scores_.data();
        const float alpha = sddmm_alpha(), beta = 0.0f;
        for (int h = 0; h < passes_; ++h) {
            HeadDescriptors hd;
            if (sddmm_) {
                hd.x = dense_descriptor(columns(x, h * d_, d_), "cusparseCreateDnMat(X_h)");
                hd.yt = dense_descriptor(transposed(columns(y, h * d_, d_)), "cusparseCreateDnMat(Y_h^T)");
                hd.scores = csr_descriptor(a, scores_.data());
                std::size_t bytes = 0;
                check(cusparseSDDMM_bufferSize(handle(), kOp, kOp, &alpha, hd.x.get(), hd.yt.get(), &beta, hd.scores.get(), CUDA_R_32F,
                                               kSddmmAlg, &bytes),
                      "cusparseSDDMM_bufferSize");
                hd.sddmm_buffer = Array<std::byte>(exec, bytes);
            }
            hd.weights = csr_descriptor(a, spmm_values);
            hd.z = dense_descriptor(columns(z, h * dz, dz), "cusparseCreateDnMat(Z_h)");
            hd.e = dense_descriptor(columns(DenseView<const float>(e), h * dz, dz), "cusparseCreateDnMat(E_h)");
            heads_.push_back(std::move(hd));
        }
        if (sddmm_) {
            sddmm_preprocess_ms_ = time_device_ms(
                exec,
                [&] {
                    for (auto& hd : heads_)
                        check(cusparseSDDMM_preprocess(handle(), kOp, kOp, &alpha, hd.x.get(), hd.yt.get(), &beta, hd.scores.get(),
                                                       CUDA_R_32F, kSddmmAlg, hd.sddmm_buffer.data()),
                              "cusparseSDDMM_preprocess");
                },
                0, 1);
        }
    }

    double sddmm_preprocess_ms() const { return sddmm_preprocess_ms_; }

    // Bytes of the buffers this pipeline holds besides SpMM's: the scores, norms and SDDMM buffers.
    std::size_t bytes() const {
        std::size_t total = scores_.size() * sizeof(float) + (x_norms_.size() + y_norms_.size()) * sizeof(float);
        for (const auto& hd : heads_) total += hd.sddmm_buffer.size();
        return total;
    }

    // Prepares SpMM with alg: its buffers (one shared by every pass, or one a pass for ALG3, whose
    // preprocessing binds the buffer to the call's descriptors) and ALG3's preprocessing. Returns
    // the SpMM buffers' bytes and the preprocessing time in ms.
    std::pair<std::size_t, double> prepare_spmm(cusparseSpMMAlg_t alg) {
        alg_ = alg;
        const float one = 1.0f, zero = 0.0f;
        const bool per_pass = alg == CUSPARSE_SPMM_CSR_ALG3;
        std::size_t largest = 0, total = 0;
        shared_spmm_buffer_ = Array<std::byte>();
        for (auto& hd : heads_) {
            hd.spmm_buffer = Array<std::byte>();
            std::size_t bytes = 0;
            check(
                cusparseSpMM_bufferSize(handle(), kOp, kOp, &one, hd.weights.get(), hd.z.get(), &zero, hd.e.get(), CUDA_R_32F, alg, &bytes),
                "cusparseSpMM_bufferSize");
            largest = std::max(largest, bytes);
            if (per_pass) {
                hd.spmm_buffer = Array<std::byte>(exec_, bytes);
                total += bytes;
            }
        }
        if (!per_pass) {
            shared_spmm_buffer_ = Array<std::byte>(exec_, largest);
            return {largest, 0.0};
        }
        const double ms = time_device_ms(
            exec_,
            [&] {
                for (auto& hd : heads_)
                    check(cusparseSpMM_preprocess(handle(), kOp, kOp, &one, hd.weights.get(), hd.z.get(), &zero, hd.e.get(), CUDA_R_32F,
                                                  alg, hd.spmm_buffer.data()),
                          "cusparseSpMM_preprocess");
            },
            0, 1);
        return {total, ms};
    }

    // One forward pass: what the benchmark times.
    void run() {
        if (o_.score == Score::neg_sqdist) launch_norms();
        const float alpha = sddmm_alpha(), beta = 0.0f, one = 1.0f, zero = 0.0f;
        for (int h = 0; h < passes_; ++h) {
            HeadDescriptors& hd = heads_[static_cast<std::size_t>(h)];
            if (sddmm_)
                check(cusparseSDDMM(handle(), kOp, kOp, &alpha, hd.x.get(), hd.yt.get(), &beta, hd.scores.get(), CUDA_R_32F, kSddmmAlg,
                                    hd.sddmm_buffer.data()),
                      "cusparseSDDMM");
            if (elementwise_) launch_edge_softmax(h);
            void* buffer = hd.spmm_buffer.empty() ? shared_spmm_buffer_.data() : hd.spmm_buffer.data();
            check(cusparseSpMM(handle(), kOp, kOp, &one, hd.weights.get(), hd.z.get(), &zero, hd.e.get(), CUDA_R_32F, alg_, buffer),
                  "cusparseSpMM");
        }
    }

private:
    cudaStream_t stream() const { return static_cast<cudaStream_t>(exec_.stream()); }
    cusparseHandle_t handle() const { return handle_.get(); }
    // neg_sqdist expands -|x - y|^2 as 2 <x,y> - |x|^2 - |y|^2: SDDMM gives the first term.
    float sddmm_alpha() const { return o_.score == Score::neg_sqdist ? 2.0f : 1.0f; }

    void launch_norms() {
        if (a_.rows > 0) {
            squared_norms<<<blocks_for(a_.rows * o_.heads), kBlock, 0, stream()>>>(a_.rows, o_.heads, d_, x_.data, strides_of(x_),
                                                                                   x_norms_.data());
            SPK_CUDA_CHECK_LAUNCH();
        }
        if (a_.cols > 0) {
            squared_norms<<<blocks_for(a_.cols * o_.heads), kBlock, 0, stream()>>>(a_.cols, o_.heads, d_, y_.data, strides_of(y_),
                                                                                   y_norms_.data());
            SPK_CUDA_CHECK_LAUNCH();
        }
    }

    void launch_edge_softmax(int head) {
        if (a_.rows == 0) return;
        EdgeArgs<I> k;
        k.rows = a_.rows;
        k.row_ptr = a_.row_ptr;
        k.col_idx = a_.col_idx;
        k.source = o_.score == Score::value ? a_.values : scores_.data();
        k.weights = scores_.data();
        if (o_.score == Score::add) {
            k.x = x_.data;
            k.y = y_.data;
            k.xs = strides_of(x_);
            k.ys = strides_of(y_);
        } else if (o_.score == Score::neg_sqdist) {
            k.x = x_norms_.data();
            k.y = y_norms_.data();
        }
        k.heads = o_.heads;
        k.head = head;
        k.score = o_.score;
        k.edge = o_.edge;
        k.softmax = o_.normalize == Normalize::softmax;
        k.mean = o_.aggregate == Aggregate::mean;
        edge_softmax<I><<<blocks_for(a_.rows * kWarp), kBlock, 0, stream()>>>(k);
        SPK_CUDA_CHECK_LAUNCH();
    }

    Executor exec_;
    CsrView<const float, I> a_;
    DenseView<const float> x_, y_;
    FusedOptions o_;
    Handle handle_;
    bool sddmm_ = false, elementwise_ = false;
    int passes_ = 1;
    index_t d_ = 0;
    Array<float> scores_, x_norms_, y_norms_;
    std::vector<HeadDescriptors> heads_;
    Array<std::byte> shared_spmm_buffer_;
    cusparseSpMMAlg_t alg_ = CUSPARSE_SPMM_ALG_DEFAULT;
    double sddmm_preprocess_ms_ = 0.0;
};

// The shapes the pipeline indexes by; anything else would read out of bounds.
template <class I>
void check_shapes(CsrView<const float, I> a, DenseView<const float> x, DenseView<const float> y, DenseView<const float> z,
                  DenseView<float> e, const FusedOptions& o) {
    if (o.heads < 1) invalid_argument("options.heads must be >= 1, got " + std::to_string(o.heads));
    if (z.rows != a.cols || z.cols % o.heads != 0) shape_mismatch("Z must be cols(A) x heads*dz");
    if (e.rows != a.rows || e.cols != z.cols) shape_mismatch("E must be rows(A) x cols(Z)");
    if (o.score == Score::value && a.values == nullptr && a.nnz > 0) invalid_argument("A: the value score needs A's values");
    if (o.score == Score::dot || o.score == Score::neg_sqdist) {
        if (x.rows != a.rows || x.cols % o.heads != 0 || x.cols == 0) shape_mismatch("X must be rows(A) x heads*d");
        if (y.rows != a.cols || y.cols != x.cols) shape_mismatch("Y must be cols(A) x heads*d");
    }
    if (o.score == Score::add && (x.rows != a.rows || x.cols != o.heads || y.rows != a.cols || y.cols != o.heads))
        shape_mismatch("X and Y must be rows(A) x heads and cols(A) x heads for the add score");
}

}  // namespace

template <class I>
std::vector<Timing> cusparse_fusedmm(const Executor& exec, CsrView<const float, I> a, DenseView<const float> x, DenseView<const float> y,
                                     DenseView<const float> z, DenseView<float> e, const FusedOptions& options, int warmup, int reps,
                                     const std::function<void(Timing&)>& after_run) {
    if (options.aggregate == Aggregate::max) {
        Timing t{"cusparse.unfused"};
        t.note = "max aggregation: cuSPARSE SpMM only sums";
        return {t};
    }
    check_shapes(a, x, y, z, e, options);
    std::optional<UnfusedPipeline<I>> pipeline;
    try {
        pipeline.emplace(exec, a, x, y, z, e, options);
    } catch (const Error& err) {
        Timing t{"cusparse.unfused"};
        t.note = err.what();
        return {t};
    }
    std::vector<Timing> out;
    const std::pair<const char*, cusparseSpMMAlg_t> algs[] = {{"cusparse.unfused.default", CUSPARSE_SPMM_ALG_DEFAULT},
                                                              {"cusparse.unfused.alg1", CUSPARSE_SPMM_CSR_ALG1},
                                                              {"cusparse.unfused.alg2", CUSPARSE_SPMM_CSR_ALG2},
                                                              {"cusparse.unfused.alg3", CUSPARSE_SPMM_CSR_ALG3}};
    for (const auto& [name, alg] : algs) {
        Timing t{name};
        try {
            const auto [spmm_bytes, spmm_preprocess_ms] = pipeline->prepare_spmm(alg);
            t.preprocess_ms = pipeline->sddmm_preprocess_ms() + spmm_preprocess_ms;
            t.peak_bytes = pipeline->bytes() + spmm_bytes;
            t.ms = time_device_ms(
                exec, [&] { pipeline->run(); }, warmup, reps);
            t.ok = true;
            after_run(t);
        } catch (const Error& err) {
            t.ok = false;
            t.note = err.what();
        }
        out.push_back(std::move(t));
    }
    return out;
}

#define SPK_INSTANTIATE(I)                                                                                                               \
    template std::vector<Timing> cusparse_fusedmm(const Executor&, CsrView<const float, I>, DenseView<const float>,                      \
                                                  DenseView<const float>, DenseView<const float>, DenseView<float>, const FusedOptions&, \
                                                  int, int, const std::function<void(Timing&)>&);
SPK_INSTANTIATE(std::int32_t)
SPK_INSTANTIATE(std::int64_t)
#undef SPK_INSTANTIATE

}  // namespace spk::baselines
