#define _GNU_SOURCE
#include "include/StackSampler.h"
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define SAMPLER_MAX_FRAMES 256

static void *sampler_frames[SAMPLER_MAX_FRAMES];
static int sampler_count = 0;
// 0 idle, 1 a sample is asked for, 2 the handler wrote one.
static int sampler_state = 0;
static int sampler_signal = 0;
static pthread_mutex_t sampler_lock = PTHREAD_MUTEX_INITIALIZER;

static void ctxdebug_sampler_handler(int sig, siginfo_t *info, void *context) {
    (void)sig;
    (void)info;
    (void)context;
    int saved = errno;
    int expected = 1;
    // Only the first answer to a request writes the buffer.
    if (__atomic_compare_exchange_n(&sampler_state, &expected, 3, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        int n = unw_backtrace(sampler_frames, SAMPLER_MAX_FRAMES);
        __atomic_store_n(&sampler_count, n < 0 ? 0 : n, __ATOMIC_RELAXED);
        __atomic_store_n(&sampler_state, 2, __ATOMIC_RELEASE);
    }
    errno = saved;
}

int ctxdebug_sampler_install(void) {
    pthread_mutex_lock(&sampler_lock);
    if (sampler_signal == 0) {
        int sig = SIGRTMIN + 6;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = ctxdebug_sampler_handler;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        // Read without the lock by ctxdebug_sampler_self: published atomically.
        if (sigaction(sig, &action, NULL) == 0) __atomic_store_n(&sampler_signal, sig, __ATOMIC_RELEASE);
    }
    int result = sampler_signal;
    pthread_mutex_unlock(&sampler_lock);
    return result;
}

static _Thread_local int sampler_unblocked = 0;

uintptr_t ctxdebug_sampler_self(void) {
    // libdispatch's worker threads block signals; the main queue runs on them under
    // dispatch_main(), so let this thread take the sampling signal.
    int sig = __atomic_load_n(&sampler_signal, __ATOMIC_ACQUIRE);
    if (!sampler_unblocked && sig != 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        sampler_unblocked = 1;
    }
    return (uintptr_t)pthread_self();
}

int ctxdebug_sampler_sample(uintptr_t thread, void **addresses, int max, int timeout_ms) {
    if (ctxdebug_sampler_install() == 0 || thread == 0 || max <= 0) return -1;
    pthread_mutex_lock(&sampler_lock);
    __atomic_store_n(&sampler_state, 1, __ATOMIC_RELEASE);
    if (pthread_kill((pthread_t)thread, sampler_signal) != 0) {
        __atomic_store_n(&sampler_state, 0, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&sampler_lock);
        return -1;
    }
    struct timespec pause = {0, 100000};  // 100 µs
    // Measured on the monotonic clock: on a busy machine a 100 µs nanosleep lasts
    // much longer, so counting sleeps would not measure the wait.
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int result = 0;
    for (;;) {
        int state = __atomic_load_n(&sampler_state, __ATOMIC_ACQUIRE);
        if (state == 2) {
            int n = __atomic_load_n(&sampler_count, __ATOMIC_RELAXED);
            if (n > max) n = max;
            memcpy(addresses, sampler_frames, sizeof(void *) * (size_t)n);
            result = n;
            break;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long waited_us = (long long)(now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000;
        if (waited_us >= (long long)timeout_ms * 1000) {
            // Withdraw the request; if the handler is writing right now, wait for it.
            int expected = 1;
            if (__atomic_compare_exchange_n(&sampler_state, &expected, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) break;
            while (__atomic_load_n(&sampler_state, __ATOMIC_ACQUIRE) != 2) nanosleep(&pause, NULL);
            continue;
        }
        nanosleep(&pause, NULL);
    }
    __atomic_store_n(&sampler_state, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&sampler_lock);
    return result;
}
