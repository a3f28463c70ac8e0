#ifndef CTXDEBUG_WAIT_RECORDS_H
#define CTXDEBUG_WAIT_RECORDS_H

#include <stdint.h>

// The wait-for graph's storage (ConcurrencyDebug's WaitForGraph): one record per
// thread that ever waited for a queue, published without a lock, so that a
// `performAndWait` nobody else is waiting beside costs a few atomic operations.
//
// A record says, while its `serial` is not 0, that its thread is blocked until
// `target`'s queue runs a block for it, holding the `count` queues of `held`. The
// owner writes `target` and `held` while `serial` is 0, then publishes a new serial
// (release); the wait ends when `serial` goes back to 0 (a compare-and-swap, so the
// served block and the woken waiter end it once). A reader validates what it read
// as a seqlock: the serial before and after is the same and not 0. Serials of one
// record only grow, so a validated read saw one wait, whole.
//
// Included from CConcurrencyDebug.h; Swift reaches it through WaitForGraph.

#define CTXDEBUG_WAIT_HELD_MAX 34

typedef struct ctxdebug_wait_record ctxdebug_wait_record;

// One step of a cycle: `waiter`'s thread holds `queue` and waits for `target`.
typedef struct {
    uintptr_t queue;
    uintptr_t target;
    uintptr_t sampler_thread;  // for ctxdebug_sampler_sample
    uint64_t thread_id;
} ctxdebug_wait_step;

// Publishes the calling thread's wait for `target`, holding its held queues and
// `extra` (0 for none; the main queue for main-queue code outside a perform block).
// Returns the wait's serial, or 0 when the thread holds nothing (nothing to record:
// a thread that holds no queue cannot close a cycle). `*others` is the number of
// other waits in progress when this one was published: 0 means no cycle is possible.
uint64_t ctxdebug_wait_begin(uintptr_t target, uintptr_t extra, long *others);

// Ends the calling thread's or another thread's wait: `record` and `serial` as
// ctxdebug_wait_current() and ctxdebug_wait_begin gave them. Returns 1 if this call
// ended it, 0 if it had ended already.
int ctxdebug_wait_end(ctxdebug_wait_record *record, uint64_t serial);

// The calling thread's record (made by its first ctxdebug_wait_begin).
ctxdebug_wait_record *ctxdebug_wait_current(void);

// Follows the waits from the calling thread's wait `serial`: who holds its target
// and waits, who holds that one's target, ... Returns the number of steps written to
// `steps` (at most `max`) when they lead back to a queue the calling thread holds and
// every wait on the way was still in progress when checked again at the end (a
// deadlock, certain); 0 otherwise.
int ctxdebug_wait_find_cycle(uint64_t serial, ctxdebug_wait_step *steps, int max);

// How many records there are (one per thread waiting at once, at most, over the
// process's life). For tests.
int ctxdebug_wait_record_count(void);

// 1 when some thread is waiting while holding `queue`. For tests.
int ctxdebug_wait_is_held_by_waiter(uintptr_t queue);

#endif
