/* The release queue: dt_release_queue_push as the release callback of strings over the
 * caller's memory, dt_release_queue_drain collecting the ids on the caller's thread, each
 * once, and each tag only its own. Buffers are malloc'ed and freed after their id is
 * drained, so valgrind sees an id drained too early (a read of freed memory) or never (a
 * leak). */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

static const char LONG_TEXT[] = "bytes the C program owns, longer than fifteen";

static void *ctx_of(uint64_t tag, uint64_t id) { return (void *)(uintptr_t)(tag | id); }

static uint64_t new_tag(void) {
    uint64_t tag = 0;
    EXPECT_STATUS(DT_OK, dt_release_queue_new_tag(&tag));
    EXPECT(tag != 0 && (tag & DT_RELEASE_QUEUE_MAX_ID) == 0);
    return tag;
}

/* Drains every id of `tag` (in batches of 3) into seen[], counting per id. */
static size_t drain_all(uint64_t tag, int *seen, size_t n_seen) {
    uint64_t ids[3];
    size_t total = 0, count = 0;
    do {
        count = 99;
        EXPECT_STATUS(DT_OK, dt_release_queue_drain(tag, ids, 3, &count));
        for (size_t k = 0; k < count; k++) {
            EXPECT(ids[k] < n_seen);
            if (ids[k] < n_seen) seen[ids[k]]++;
        }
        total += count;
    } while (count == 3);
    return total;
}

static void strings_queue_their_ids_after_the_last_handle(void) {
    enum { N = 8 };
    uint64_t tag = new_tag();
    uint8_t *bufs[N];
    dt_str s[N], copies[N];
    for (size_t i = 0; i < N; i++) {
        bufs[i] = malloc(sizeof LONG_TEXT);
        memcpy(bufs[i], LONG_TEXT, sizeof LONG_TEXT);
        EXPECT_STATUS(DT_OK, dt_str_from_external(bufs[i], sizeof LONG_TEXT - 1, dt_release_queue_push,
                                                  ctx_of(tag, i), &s[i]));
        EXPECT_STATUS(DT_OK, dt_str_clone(&s[i], &copies[i]));
    }
    int seen[N] = {0};
    for (size_t i = 0; i < N; i++) EXPECT_STATUS(DT_OK, dt_str_release(&s[i]));
    EXPECT(drain_all(tag, seen, N) == 0); /* the copies still read the buffers */
    for (size_t i = 0; i < N; i++) {
        const uint8_t *data = NULL;
        size_t len = 0;
        EXPECT_STATUS(DT_OK, dt_str_bytes(&copies[i], &data, &len));
        EXPECT(data == bufs[i] && bytes_equal(data, len, LONG_TEXT));
        EXPECT_STATUS(DT_OK, dt_str_release(&copies[i]));
    }
    EXPECT(drain_all(tag, seen, N) == N);
    for (size_t i = 0; i < N; i++) {
        EXPECT(seen[i] == 1);
        free(bufs[i]);
    }
}

/* A refused string queues nothing: the caller still owns the memory. */
static void a_refused_string_queues_nothing(void) {
    uint64_t tag = new_tag();
    static const uint8_t bad[] = "\xff\xfe not UTF-8, longer than fifteen bytes";
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_ERR_UTF8,
                  dt_str_from_external_utf8(bad, sizeof bad - 1, dt_release_queue_push, ctx_of(tag, 1), &s));
    int seen[2] = {0};
    EXPECT(drain_all(tag, seen, 2) == 0);
}

static void tags_keep_users_apart_and_arguments_are_checked(void) {
    uint64_t mine = new_tag(), theirs = new_tag();
    EXPECT(mine != theirs);
    dt_release_queue_push(ctx_of(theirs, 5));
    dt_release_queue_push(ctx_of(mine, 6));
    uint64_t ids[4];
    size_t count = 7;
    EXPECT_STATUS(DT_ERR_NULL, dt_release_queue_new_tag(NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_release_queue_drain(mine, ids, 4, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_release_queue_drain(mine, NULL, 4, &count));
    EXPECT_STATUS(DT_ERR_RANGE, dt_release_queue_drain(mine | 1, ids, 4, &count));
    EXPECT(count == 7); /* untouched on an error */
    EXPECT_STATUS(DT_OK, dt_release_queue_drain(mine, NULL, 0, &count));
    EXPECT(count == 0);
    EXPECT_STATUS(DT_OK, dt_release_queue_drain(mine, ids, 4, &count));
    EXPECT(count == 1 && ids[0] == 6);
    EXPECT_STATUS(DT_OK, dt_release_queue_drain(theirs, ids, 4, &count));
    EXPECT(count == 1 && ids[0] == 5);
}

enum { THREADS = 4, PER_THREAD = 500 };
static uint64_t threads_tag;

static void *push_ids(void *arg) {
    uintptr_t t = (uintptr_t)arg;
    for (uint64_t k = 0; k < PER_THREAD; k++) dt_release_queue_push(ctx_of(threads_tag, t * PER_THREAD + k));
    return NULL;
}

static void pushes_from_four_threads_drain_once_each(void) {
    threads_tag = new_tag();
    static int seen[THREADS * PER_THREAD];
    pthread_t threads[THREADS];
    for (uintptr_t t = 0; t < THREADS; t++) EXPECT(pthread_create(&threads[t], NULL, push_ids, (void *)t) == 0);
    size_t total = 0;
    for (int round = 0; round < 20; round++) total += drain_all(threads_tag, seen, THREADS * PER_THREAD);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    total += drain_all(threads_tag, seen, THREADS * PER_THREAD);
    EXPECT(total == THREADS * PER_THREAD);
    int once = 1;
    for (size_t i = 0; i < THREADS * PER_THREAD; i++) once &= seen[i] == 1;
    EXPECT(once);
}

int main(void) {
    RUN(strings_queue_their_ids_after_the_last_handle);
    RUN(a_refused_string_queues_nothing);
    RUN(tags_keep_users_apart_and_arguments_are_checked);
    RUN(pushes_from_four_threads_drain_once_each);
    FINISH();
}
