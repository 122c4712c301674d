// What a host can move between pageable memory and its GPUs, apart from any gemm: the rate of
// the staged copies Tessera's CUDA backend makes for host operands (pageable memory copied by
// an OpenMP team into two pinned halves in turn, each half's transfer overlapping the next
// copy; cuda/staging.cu), for one device alone and every device at once, by chunk size and
// team size; then pinning the pageable memory in place (cudaHostRegister) and plain
// cudaMemcpy from pageable memory, for comparison.
//
// Not part of the build: nvcc -O2 -Xcompiler -fopenmp bench/probes/host_copies.cu -o probe
// (docs/scaling.md, "From pageable memory: the host's copies").
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

void team_copy(void *dst, const void *src, size_t bytes, int threads) {
    const size_t piece = (bytes + size_t(threads) - 1) / size_t(threads);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
        const size_t b0 = size_t(t) * piece;
        if (b0 < bytes)
            std::memcpy(static_cast<char *>(dst) + b0, static_cast<const char *>(src) + b0,
                        std::min(piece, bytes - b0));
    }
}

struct Device {
    int id = 0;
    size_t chunk = 0;
    void *half[2] = {nullptr, nullptr};
    cudaEvent_t done[2] = {nullptr, nullptr};
    cudaStream_t stream = nullptr;
    void *buffer = nullptr;
    void make(int device, size_t chunk_bytes, size_t bytes) {
        id = device, chunk = chunk_bytes;
        check(cudaSetDevice(id), "cudaSetDevice");
        for (int i = 0; i < 2; ++i) {
            check(cudaHostAlloc(&half[i], chunk, cudaHostAllocPortable), "cudaHostAlloc");
            check(cudaEventCreate(&done[i]), "cudaEventCreate");
            check(cudaEventRecord(done[i]), "cudaEventRecord");
        }
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaMalloc(&buffer, bytes), "cudaMalloc");
    }
    void release() {
        cudaSetDevice(id);
        for (int i = 0; i < 2; ++i) cudaFreeHost(half[i]), cudaEventDestroy(done[i]);
        cudaStreamDestroy(stream);
        cudaFree(buffer);
    }
    // mode 0: the host copies alone; 1: up (copy, then transfer); 2: down (transfer, then copy)
    void move(char *host, size_t bytes, int threads, int mode) {
        check(cudaSetDevice(id), "cudaSetDevice");
        const size_t chunks = (bytes + chunk - 1) / chunk;
        auto down = [&](size_t c) {
            const size_t at = c * chunk, n = std::min(chunk, bytes - at);
            check(cudaMemcpyAsync(half[c & 1], static_cast<char *>(buffer) + at, n,
                                  cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync");
            check(cudaEventRecord(done[c & 1], stream), "cudaEventRecord");
        };
        if (mode == 2)
            for (size_t c = 0; c < std::min<size_t>(2, chunks); ++c) down(c);
        for (size_t c = 0; c < chunks; ++c) {
            const size_t at = c * chunk, n = std::min(chunk, bytes - at);
            check(cudaEventSynchronize(done[c & 1]), "cudaEventSynchronize");
            if (mode == 2) {
                team_copy(host + at, half[c & 1], n, threads);
                if (c + 2 < chunks) down(c + 2);
                continue;
            }
            team_copy(half[c & 1], host + at, n, threads);
            if (mode == 1)
                check(cudaMemcpyAsync(static_cast<char *>(buffer) + at, half[c & 1], n,
                                      cudaMemcpyHostToDevice, stream),
                      "cudaMemcpyAsync");
            check(cudaEventRecord(done[c & 1], stream), "cudaEventRecord");
        }
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
};

// Runs f(i) for devices 0 .. used-1 at once, each on a thread of its own; the wall time.
template <typename F> double at_once(int used, F &&f) {
    const auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < used; ++i) threads.emplace_back([&, i] { f(i); });
    for (std::thread &t : threads) t.join();
    return since(t0);
}

} // namespace

int main() {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    const size_t bytes = size_t(2) << 30; // per device
    std::vector<char *> host(static_cast<size_t>(count));
    for (char *&h : host) {
        h = static_cast<char *>(std::malloc(bytes));
        if (!h) return 1;
        std::memset(h, 1, bytes); // touched, as a user's operand is
    }
    std::printf("%d device(s), %zu MiB of pageable memory each; best of 3, GB/s\n", count,
                bytes >> 20);
    const char *names[3] = {"host copy", "up", "down"};
    for (size_t chunk : {size_t(8) << 20, size_t(32) << 20}) {
        std::vector<Device> devices(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) devices[size_t(i)].make(i, chunk, bytes);
        for (int threads : {4, 8, 16})
            for (int mode = 0; mode < 3; ++mode)
                for (int used : {1, count}) {
                    double best = 1e30;
                    for (int rep = 0; rep < 3; ++rep)
                        best = std::min(best, at_once(used, [&](int i) {
                                            devices[size_t(i)].move(host[size_t(i)], bytes,
                                                                    threads, mode);
                                        }));
                    std::printf("staged: chunk %2zu MiB, %2d threads a device, %-9s, %d device(s): "
                                "%6.1f in all, %5.1f a device\n",
                                chunk >> 20, threads, names[mode], used,
                                double(used) * double(bytes) / best / 1e9,
                                double(bytes) / best / 1e9);
                    if (count == 1) break;
                }
        for (Device &d : devices) d.release();
    }
    // Pinning in place, then DMA, for every device at once.
    std::vector<void *> buffers(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        check(cudaSetDevice(i), "cudaSetDevice");
        check(cudaMalloc(&buffers[size_t(i)], bytes), "cudaMalloc");
    }
    for (int used : {1, count}) {
        std::vector<double> reg(static_cast<size_t>(used)), up(static_cast<size_t>(used)),
            down(static_cast<size_t>(used)), unreg(static_cast<size_t>(used));
        const double all = at_once(used, [&](int i) {
            const size_t d = size_t(i);
            check(cudaSetDevice(i), "cudaSetDevice");
            auto t = Clock::now();
            check(cudaHostRegister(host[d], bytes, cudaHostRegisterPortable), "cudaHostRegister");
            reg[d] = since(t), t = Clock::now();
            check(cudaMemcpy(buffers[d], host[d], bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
            up[d] = since(t), t = Clock::now();
            check(cudaMemcpy(host[d], buffers[d], bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
            down[d] = since(t), t = Clock::now();
            check(cudaHostUnregister(host[d]), "cudaHostUnregister");
            unreg[d] = since(t);
        });
        for (int i = 0; i < used; ++i)
            std::printf("registered, %d device(s), device %d: register %.1f ms (%.1f GB/s), up "
                        "%.1f GB/s, down %.1f GB/s, unregister %.1f ms\n",
                        used, i, reg[size_t(i)] * 1e3, double(bytes) / reg[size_t(i)] / 1e9,
                        double(bytes) / up[size_t(i)] / 1e9,
                        double(bytes) / down[size_t(i)] / 1e9, unreg[size_t(i)] * 1e3);
        std::printf("registered, %d device(s): %.1f ms in all\n", used, all * 1e3);
        if (count == 1) break;
    }
    for (int used : {1, count}) {
        std::vector<double> up(static_cast<size_t>(used)), down(static_cast<size_t>(used));
        at_once(used, [&](int i) {
            const size_t d = size_t(i);
            check(cudaSetDevice(i), "cudaSetDevice");
            auto t = Clock::now();
            check(cudaMemcpy(buffers[d], host[d], bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
            up[d] = since(t), t = Clock::now();
            check(cudaMemcpy(host[d], buffers[d], bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
            down[d] = since(t);
        });
        for (int i = 0; i < used; ++i)
            std::printf("cudaMemcpy from pageable memory, %d device(s), device %d: up %.1f GB/s, "
                        "down %.1f GB/s\n",
                        used, i, double(bytes) / up[size_t(i)] / 1e9,
                        double(bytes) / down[size_t(i)] / 1e9);
        if (count == 1) break;
    }
    for (void *b : buffers) cudaFree(b);
    for (char *h : host) std::free(h);
    return 0;
}
