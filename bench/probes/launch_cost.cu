// Where a small call's time goes: per call, the host's time to queue it, the device time of a
// batch of back-to-back calls (what `spk bench` reports for short calls), and the device time of a
// CUDA graph replaying that batch (the kernels alone, no launch path). For an empty kernel launched
// three ways (<<<>>>, cudaLaunchKernelEx, and with programmatic stream serialization), then for
// spk's SpMM and cuSPARSE's CSR ALG3 on each matrix given, at n = 32 and 128, each in batches of
// 256 and 32 calls. Built with the CUDA backend as bin/spk_launch_probe:
//   spk_launch_probe MATRIX...
// A host figure close to the batch figure means the host's launch path sets the pace.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "spk/spk.hpp"

namespace {

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
}

void check(cusparseStatus_t s, const char* what) {
    if (s == CUSPARSE_STATUS_SUCCESS) return;
    std::fprintf(stderr, "%s: %s\n", what, cusparseGetErrorString(s));
    std::exit(1);
}

__global__ void empty_kernel(float* p) {
    if (p && threadIdx.x == 1000) p[0] = 1;  // never true: keeps the kernel from being empty code
}

__global__ void dependent_empty_kernel(float* p) {
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
    if (p && threadIdx.x == 1000) p[0] = 1;
}

struct Figures {
    double host_us = 0, batch_us = 0, graph_us = -1;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

Figures measure(cudaStream_t s, const std::function<void()>& call, int calls) {
    constexpr int reps = 7;
    for (int i = 0; i < 20; ++i) call();
    check(cudaStreamSynchronize(s), "warm-up");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    const auto device_us = [&](const std::function<void()>& batch) {
        check(cudaEventRecord(start, s), "cudaEventRecord");
        batch();
        check(cudaEventRecord(stop, s), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        return ms * 1e3 / calls;
    };
    std::vector<double> host, batch, graph;
    for (int r = 0; r < reps; ++r)
        batch.push_back(device_us([&] {
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < calls; ++i) call();
            host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls);
        }));
    Figures f{median(host), median(batch)};
    cudaGraph_t g = nullptr;
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    for (int i = 0; i < calls; ++i) call();
    check(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    check(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
    for (int r = 0; r < reps; ++r) graph.push_back(device_us([&] { check(cudaGraphLaunch(exec, s), "cudaGraphLaunch"); }));
    f.graph_us = median(graph);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return f;
}

void print(const std::string& what, const std::string& where, const Figures& f) {
    std::printf("%-24s %-30s host %6.2f us  batch %6.2f us  graph %6.2f us\n", what.c_str(), where.c_str(), f.host_us, f.batch_us,
                f.graph_us);
}

void launch_ex(cudaStream_t s, unsigned blocks, bool dependent, float* p) {
    cudaLaunchConfig_t config{};
    config.gridDim = blocks;
    config.blockDim = 256;
    config.stream = s;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = dependent ? 1 : 0;
    check(cudaLaunchKernelEx(&config, dependent ? dependent_empty_kernel : empty_kernel, p), "cudaLaunchKernelEx");
}

void probe_matrix(cudaStream_t s, cusparseHandle_t handle, const std::string& path) {
    const spk::Executor exec = spk::Executor::cuda(0, s);
    const std::string name = path.substr(path.find_last_of('/') + 1);
    const auto a = spk::load_matrix<float, std::int32_t>(path).to(exec);
    for (const spk::index_t n : {32, 128}) {
        std::vector<float> host(static_cast<std::size_t>(a.cols() * n));
        for (std::size_t k = 0; k < host.size(); ++k) host[k] = 0.5f + 0.25f * static_cast<float>(k % 7);
        const spk::Dense<float> b(exec, a.cols(), n, host);
        spk::Dense<float> c(exec, a.rows(), n);
        const spk::SpmmPlan<float, std::int32_t> plan(exec, a.view(), n);
        const std::string where = name + " n=" + std::to_string(n);
        std::printf("%s: spk %s\n", where.c_str(), plan.config().c_str());

        cusparseSpMatDescr_t ma;
        cusparseDnMatDescr_t mb, mc;
        const auto v = a.view();
        check(cusparseCreateCsr(&ma, a.rows(), a.cols(), a.nnz(), const_cast<std::int32_t*>(v.row_ptr), const_cast<std::int32_t*>(v.col_idx),
                                const_cast<float*>(v.values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
              "cusparseCreateCsr");
        check(cusparseCreateDnMat(&mb, a.cols(), n, n, const_cast<float*>(b.values().data()), CUDA_R_32F, CUSPARSE_ORDER_ROW),
              "cusparseCreateDnMat");
        check(cusparseCreateDnMat(&mc, a.rows(), n, n, c.values().data(), CUDA_R_32F, CUSPARSE_ORDER_ROW), "cusparseCreateDnMat");
        const float alpha = 1, beta = 0;
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        const auto alg = CUSPARSE_SPMM_CSR_ALG3;
        std::size_t bytes = 0;
        check(cusparseSpMM_bufferSize(handle, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, &bytes), "cusparseSpMM_bufferSize");
        void* buffer = nullptr;
        check(cudaMalloc(&buffer, bytes + 16), "cudaMalloc");
        check(cusparseSpMM_preprocess(handle, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, buffer), "cusparseSpMM_preprocess");
        for (const int calls : {256, 32}) {
            const std::string tag = " x" + std::to_string(calls);
            print("spk" + tag, where, measure(s, [&] { plan.run(b.cview(), c.view()); }, calls));
            print("cusparse alg3" + tag, where, measure(s, [&] {
                      check(cusparseSpMM(handle, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, buffer), "cusparseSpMM");
                  }, calls));
        }
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        cudaFree(buffer);
        cusparseDestroySpMat(ma);
        cusparseDestroyDnMat(mb);
        cusparseDestroyDnMat(mc);
    }
}

}  // namespace

int main(int argc, char** argv) {
    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    float* unused = nullptr;
    check(cudaMalloc(&unused, sizeof(float)), "cudaMalloc");
    for (int round = 0; round < 2; ++round)
        for (const unsigned blocks : {1u, 132u}) {
            const std::string where = std::to_string(blocks) + " blocks of 256";
            print("empty <<<>>>", where, measure(s, [&] { empty_kernel<<<blocks, 256, 0, s>>>(unused); }, 256));
            print("empty LaunchKernelEx", where, measure(s, [&] { launch_ex(s, blocks, false, unused); }, 256));
            print("dependent LaunchKernelEx", where, measure(s, [&] { launch_ex(s, blocks, true, unused); }, 256));
        }
    check(cudaGetLastError(), "empty kernels");
    cusparseHandle_t handle;
    check(cusparseCreate(&handle), "cusparseCreate");
    check(cusparseSetStream(handle, s), "cusparseSetStream");
    for (int i = 1; i < argc; ++i) probe_matrix(s, handle, argv[i]);
    cusparseDestroy(handle);
    cudaFree(unused);
    cudaStreamDestroy(s);
    return 0;
}
