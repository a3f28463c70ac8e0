#ifndef CCTXDEBUGHELPERS_H
#define CCTXDEBUGHELPERS_H

// What the helpers module (CtxdebugHelpers) needs from C, and nothing else: as
// swift-nio's CNIOAtomics is to NIOConcurrencyHelpers.

// ThreadSanitizer annotations. Synchronization.Mutex on Linux waits on futexes, which
// ThreadSanitizer does not see, so every access under such a lock would look like a
// race. `LockedValue` calls these after taking and before releasing its lock. The
// symbols are weak: in a build without ThreadSanitizer they are null and these do nothing.
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));
static inline void ctxdebug_tsan_acquire(void *addr) { if (__tsan_acquire) __tsan_acquire(addr); }
static inline void ctxdebug_tsan_release(void *addr) { if (__tsan_release) __tsan_release(addr); }

#endif
