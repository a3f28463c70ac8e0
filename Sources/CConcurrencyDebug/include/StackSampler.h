#ifndef CTXDEBUG_STACK_SAMPLER_H
#define CTXDEBUG_STACK_SAMPLER_H

#include <stdint.h>

// Stack sampling of another thread, for the replay watchdog: it sends a real-time
// signal to the thread that runs main-queue work, whose handler captures that
// thread's stack with unw_backtrace (async-signal-safe) into a static buffer.
//
// Included from CConcurrencyDebug.h; Swift reaches it through ConcurrencyDebug's StackSampler.

// Installs the signal handler once. Returns the signal number used.
int ctxdebug_sampler_install(void);

// The calling thread's pthread_t, as an integer: what to pass to _sample. Also
// unblocks the sampling signal on this thread (libdispatch workers block signals).
uintptr_t ctxdebug_sampler_self(void);

// Captures up to `max` return addresses of `thread` (innermost first) into
// `addresses`, waiting at most `timeout_ms` for the thread to answer. Returns how
// many were written; 0 when the thread did not answer in time, -1 when it is gone.
// Calls are serialized; call it from one watchdog thread.
int ctxdebug_sampler_sample(uintptr_t thread, void **addresses, int max, int timeout_ms);

#endif
