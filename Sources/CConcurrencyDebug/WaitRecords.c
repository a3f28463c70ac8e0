#define _GNU_SOURCE
#include "CConcurrencyDebug.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <pthread.h>

struct ctxdebug_wait_record {
    _Atomic uint64_t serial;  // the wait in progress; 0 when none
    _Atomic uintptr_t target;
    _Atomic int count;
    _Atomic uintptr_t held[CTXDEBUG_WAIT_HELD_MAX];
    _Atomic uintptr_t sampler_thread;  // the owning thread's; rewritten when another thread takes the record over
    _Atomic uint64_t thread_id;
    _Atomic int in_use;  // 0 once the owning thread has exited: the next new thread may take it
    uint64_t next_serial;  // the owner's own
    ctxdebug_wait_record *next;  // set before the record is listed, then read only
};

static _Atomic(ctxdebug_wait_record *) records = NULL;
static _Atomic long waiting = 0;
static _Thread_local ctxdebug_wait_record *self_record = NULL;

// Records are never freed, so a reader may follow the list without a lock. A thread
// that exits hands its record back (its pthread key's destructor), and the next new
// thread takes it over: the list is as long as the most threads that ever waited at
// once, not as the threads that ever lived. The record's serials keep growing across
// owners, so a reader's validation still sees one wait, whole.
static pthread_key_t release_key;
static pthread_once_t release_once = PTHREAD_ONCE_INIT;

static void release_record(void *record) {
    atomic_store_explicit(&((ctxdebug_wait_record *)record)->in_use, 0, memory_order_release);
}

static void make_release_key(void) { pthread_key_create(&release_key, release_record); }

static ctxdebug_wait_record *claim_or_make_record(void) {
    for (ctxdebug_wait_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) {
        int free = 0;
        if (atomic_compare_exchange_strong_explicit(&r->in_use, &free, 1, memory_order_acq_rel, memory_order_relaxed)) return r;
    }
    ctxdebug_wait_record *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    atomic_store_explicit(&r->in_use, 1, memory_order_relaxed);
    ctxdebug_wait_record *head = atomic_load_explicit(&records, memory_order_relaxed);
    do {
        r->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&records, &head, r, memory_order_release, memory_order_relaxed));
    return r;
}

static ctxdebug_wait_record *make_record(void) {
    pthread_once(&release_once, make_release_key);
    ctxdebug_wait_record *r = claim_or_make_record();
    if (r == NULL) return NULL;
    ctxdebug_sampler_install();  // so that the thread can be sampled when it is part of a cycle
    atomic_store_explicit(&r->sampler_thread, ctxdebug_sampler_self(), memory_order_relaxed);
    atomic_store_explicit(&r->thread_id, ctxdebug_thread_id(), memory_order_relaxed);
    pthread_setspecific(release_key, r);
    return r;
}

int ctxdebug_wait_record_count(void) {
    int n = 0;
    for (ctxdebug_wait_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) n++;
    return n;
}

ctxdebug_wait_record *ctxdebug_wait_current(void) { return self_record; }

uint64_t ctxdebug_wait_begin(uintptr_t target, uintptr_t extra, long *others) {
    int held = ctxdebug_held_count_tls < CTXDEBUG_HELD_MAX ? ctxdebug_held_count_tls : CTXDEBUG_HELD_MAX;
    *others = 0;
    if (held == 0 && extra == 0) return 0;
    ctxdebug_wait_record *r = self_record;
    if (r == NULL) {
        r = self_record = make_record();
        if (r == NULL) return 0;
    }
    if (atomic_load_explicit(&r->serial, memory_order_relaxed) != 0) {
        ctxdebug_wait_end(r, atomic_load_explicit(&r->serial, memory_order_relaxed));  // never ended: not a wait any more
    }
    int n = 0;
    for (int i = 0; i < held; i++) atomic_store_explicit(&r->held[n++], ctxdebug_held_tls[i], memory_order_relaxed);
    if (extra != 0) atomic_store_explicit(&r->held[n++], extra, memory_order_relaxed);
    atomic_store_explicit(&r->count, n, memory_order_relaxed);
    atomic_store_explicit(&r->target, target, memory_order_relaxed);
    uint64_t serial = ++r->next_serial;
    atomic_store_explicit(&r->serial, serial, memory_order_release);
    // Sequentially consistent: of two waits published at once, the later increment
    // sees the earlier one, so the wait that closes a cycle always looks for it.
    *others = atomic_fetch_add_explicit(&waiting, 1, memory_order_seq_cst);
    return serial;
}

int ctxdebug_wait_end(ctxdebug_wait_record *record, uint64_t serial) {
    if (record == NULL || serial == 0) return 0;
    uint64_t expected = serial;
    if (!atomic_compare_exchange_strong_explicit(&record->serial, &expected, 0, memory_order_acq_rel, memory_order_relaxed)) return 0;
    atomic_fetch_sub_explicit(&waiting, 1, memory_order_release);
    return 1;
}

// A validated read of one record's wait.
typedef struct {
    uint64_t serial;
    uintptr_t target;
    int count;
    uintptr_t held[CTXDEBUG_WAIT_HELD_MAX];
} snapshot;

static int read_record(ctxdebug_wait_record *r, snapshot *s) {
    s->serial = atomic_load_explicit(&r->serial, memory_order_acquire);
    if (s->serial == 0) return 0;
    s->target = atomic_load_explicit(&r->target, memory_order_relaxed);
    s->count = atomic_load_explicit(&r->count, memory_order_relaxed);
    if (s->count > CTXDEBUG_WAIT_HELD_MAX) s->count = CTXDEBUG_WAIT_HELD_MAX;
    for (int i = 0; i < s->count; i++) s->held[i] = atomic_load_explicit(&r->held[i], memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&r->serial, memory_order_relaxed) == s->serial;
}

static int holds(const snapshot *s, uintptr_t queue) {
    for (int i = 0; i < s->count; i++) if (s->held[i] == queue) return 1;
    return 0;
}

// The waiting record (other than `skip`) whose thread holds `queue`.
static ctxdebug_wait_record *waiter_holding(uintptr_t queue, ctxdebug_wait_record *skip, snapshot *s) {
    for (ctxdebug_wait_record *r = atomic_load_explicit(&records, memory_order_acquire); r != NULL; r = r->next) {
        if (r != skip && read_record(r, s) && holds(s, queue)) return r;
    }
    return NULL;
}

int ctxdebug_wait_find_cycle(uint64_t serial, ctxdebug_wait_step *steps, int max) {
    ctxdebug_wait_record *me = self_record;
    snapshot mine, other;
    if (me == NULL || !read_record(me, &mine) || mine.serial != serial) return 0;
    ctxdebug_wait_record *path[64];
    uint64_t serials[64];
    int n = 0;
    uintptr_t at = mine.target;
    while (n < max && n < 64) {
        ctxdebug_wait_record *r = waiter_holding(at, me, &other);
        if (r == NULL) return 0;
        path[n] = r;
        serials[n] = other.serial;
        steps[n] = (ctxdebug_wait_step){
            at, other.target, atomic_load_explicit(&r->sampler_thread, memory_order_relaxed),
            atomic_load_explicit(&r->thread_id, memory_order_relaxed)};
        n++;
        if (holds(&mine, other.target)) {
            // Every wait on the way was in progress from its first read to now:
            // at the moment between, all of them were, so none can ever end.
            for (int i = 0; i < n; i++) {
                if (atomic_load_explicit(&path[i]->serial, memory_order_acquire) != serials[i]) return 0;
            }
            if (atomic_load_explicit(&me->serial, memory_order_acquire) != serial) return 0;
            return n;
        }
        at = other.target;
    }
    return 0;
}

int ctxdebug_wait_is_held_by_waiter(uintptr_t queue) {
    snapshot s;
    return waiter_holding(queue, NULL, &s) != NULL;
}
