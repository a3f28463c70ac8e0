#ifndef CCTXDEBUGHELPERS_H
#define CCTXDEBUGHELPERS_H

// What the helpers module (CtxdebugHelpers) needs from C, as swift-nio's CNIOAtomics is
// to NIOConcurrencyHelpers, and nothing else (the dispatch control's hook tables are
// CScheduleControl's).

// ThreadSanitizer annotations. Synchronization.Mutex on Linux waits on futexes, which
// ThreadSanitizer does not see, so every access under such a lock would look like a
// race. `LockedValue` calls these after taking and before releasing its lock. The
// symbols are weak: in a build without ThreadSanitizer they are null and these do nothing.
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));
static inline void ctxdebug_tsan_acquire(void *addr) { if (__tsan_acquire) __tsan_acquire(addr); }
static inline void ctxdebug_tsan_release(void *addr) { if (__tsan_release) __tsan_release(addr); }

// A per-thread count that is above zero while the schedule control itself (or the
// runtime's store) calls libdispatch, so the dispatch control's hooks (docs/explore.md,
// "What is controlled") leave those calls to the real functions.
extern _Thread_local int ctxdebug_dispatch_bypass;
static inline int ctxdebug_dispatch_bypassed(void) { return ctxdebug_dispatch_bypass > 0; }
static inline void ctxdebug_dispatch_bypass_enter(void) { ctxdebug_dispatch_bypass += 1; }
static inline void ctxdebug_dispatch_bypass_leave(void) { ctxdebug_dispatch_bypass -= 1; }
static inline int ctxdebug_dispatch_bypass_clear(void) {
    int saved = ctxdebug_dispatch_bypass;
    ctxdebug_dispatch_bypass = 0;
    return saved;
}
static inline void ctxdebug_dispatch_bypass_restore(int saved) { ctxdebug_dispatch_bypass = saved; }

#endif
