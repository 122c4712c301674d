// GNU OpenMP's thread pool does not survive fork(): a child that opens a parallel region
// waits forever for threads it does not have. A fork handler notes the fork, and such a
// child runs every call on its one thread.
#include "core/threads.hpp"

#include <omp.h>
#include <pthread.h>

#include <atomic>

namespace tessera::core {

namespace {

std::atomic<bool> g_threads_started{false};
std::atomic<bool> g_forked_after_threads{false};

void in_child_after_fork() {
    if (g_threads_started.load(std::memory_order_relaxed))
        g_forked_after_threads.store(true, std::memory_order_relaxed);
}

} // namespace

int call_threads(int requested) {
    static const bool registered = pthread_atfork(nullptr, nullptr, in_child_after_fork) == 0;
    (void)registered;
    if (requested <= 1 || omp_in_parallel() ||
        g_forked_after_threads.load(std::memory_order_relaxed))
        return 1;
    g_threads_started.store(true, std::memory_order_relaxed);
    return requested;
}

} // namespace tessera::core
