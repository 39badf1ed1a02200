/* dt_str_from_external / dt_str_from_external_utf8: strings over memory the caller owns.
 * Every buffer here is malloc'ed and freed by its release callback, so valgrind sees a
 * release that comes too early (a read of freed memory), twice (a double free) or never
 * (a leak). */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "harness.h"

/* The memory a string is made over, and what its release saw. */
typedef struct {
    uint8_t *buf; /* freed by release_owner */
    size_t len;
    atomic_int calls;
    pthread_t released_on;
} owner_t;

static void release_owner(void *ctx) {
    owner_t *o = ctx;
    free(o->buf);
    o->buf = NULL;
    o->released_on = pthread_self();
    atomic_fetch_add(&o->calls, 1);
}

static void owner_init(owner_t *o, const char *text) {
    o->len = strlen(text);
    o->buf = malloc(o->len ? o->len : 1);
    memcpy(o->buf, text, o->len);
    atomic_init(&o->calls, 0);
}

static int calls(owner_t *o) { return atomic_load(&o->calls); }

static const char LONG_TEXT[] = "bytes the C program owns, longer than fifteen";

static int holds(const dt_str *s, const char *text, const uint8_t **at) {
    const uint8_t *data = NULL;
    size_t len = 0;
    int ok = dt_str_bytes(s, &data, &len) == DT_OK && bytes_equal(data, len, text);
    if (at) *at = data;
    return ok;
}

static void a_long_string_reads_the_callers_memory(void) {
    owner_t o;
    owner_init(&o, LONG_TEXT);
    uint8_t *buf = o.buf;
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_owner, &o, &s));
    const uint8_t *at = NULL;
    EXPECT(holds(&s, LONG_TEXT, &at) && at == buf); /* no copy */
    EXPECT(dt_str_len(&s) == o.len && dt_str_is_utf8(&s) == 1);
    EXPECT(calls(&o) == 0);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&o) == 1 && o.buf == NULL);
    /* releasing the same handle again: the released status, no second call */
    EXPECT_STATUS(DT_ERR_RELEASED, dt_str_release(&s));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_str_clone(&s, &(dt_str){0, 0}));
    EXPECT(calls(&o) == 1);
}

/* The original, a clone and a slice, released in each of the six orders. */
static void clones_and_slices_release_once_in_any_order(void) {
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < 6; k++) {
        owner_t o;
        owner_init(&o, LONG_TEXT);
        uint8_t *buf = o.buf;
        dt_str h[3];
        EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_owner, &o, &h[0]));
        EXPECT_STATUS(DT_OK, dt_str_clone(&h[0], &h[1]));
        EXPECT_STATUS(DT_OK, dt_str_slice(&h[0], 6, 38, &h[2]));
        const uint8_t *at = NULL;
        EXPECT(holds(&h[2], "the C program owns, longer than ", &at) && at == buf + 6);
        for (int i = 0; i < 3; i++) {
            EXPECT(calls(&o) == 0);
            /* the handles still held read the caller's bytes (valgrind: not freed yet) */
            for (int j = i; j < 3; j++) EXPECT(dt_str_len(&h[orders[k][j]]) > 0);
            EXPECT_STATUS(DT_OK, dt_str_release(&h[orders[k][i]]));
        }
        EXPECT(calls(&o) == 1);
        for (int i = 0; i < 3; i++) EXPECT_STATUS(DT_ERR_RELEASED, dt_str_release(&h[i]));
        EXPECT(calls(&o) == 1);
    }
}

static void *release_handle(void *arg) {
    EXPECT_STATUS(DT_OK, dt_str_release(arg));
    return NULL;
}

static void the_last_release_may_come_from_another_thread(void) {
    owner_t o;
    owner_init(&o, LONG_TEXT);
    dt_str s, copy;
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_owner, &o, &s));
    EXPECT_STATUS(DT_OK, dt_str_clone(&s, &copy));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, release_handle, &copy) == 0);
    EXPECT(pthread_join(t, NULL) == 0);
    EXPECT(calls(&o) == 1 && pthread_equal(o.released_on, t));
}

#define THREADS 4
#define ROUNDS 50

typedef struct {
    dt_str handles[ROUNDS];
} clones_t;

static void *release_all(void *arg) {
    clones_t *c = arg;
    for (int i = 0; i < ROUNDS; i++) EXPECT_STATUS(DT_OK, dt_str_release(&c->handles[i]));
    return NULL;
}

/* Four threads release clones of the same strings at once: each release runs once. */
static void four_threads_release_each_string_once(void) {
    static owner_t owners[ROUNDS];
    static clones_t clones[THREADS];
    for (int i = 0; i < ROUNDS; i++) {
        owner_init(&owners[i], LONG_TEXT);
        dt_str s;
        EXPECT_STATUS(DT_OK, dt_str_from_external(owners[i].buf, owners[i].len, release_owner, &owners[i], &s));
        for (int t = 0; t < THREADS; t++) EXPECT_STATUS(DT_OK, dt_str_clone(&s, &clones[t].handles[i]));
        EXPECT_STATUS(DT_OK, dt_str_release(&s));
    }
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) EXPECT(pthread_create(&threads[t], NULL, release_all, &clones[t]) == 0);
    for (int t = 0; t < THREADS; t++) EXPECT(pthread_join(threads[t], NULL) == 0);
    for (int i = 0; i < ROUNDS; i++) EXPECT(calls(&owners[i]) == 1);
}

static void short_strings_are_copied_and_released_at_once(void) {
    owner_t o;
    owner_init(&o, "fifteen bytes!!");
    dt_str s;
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_owner, &o, &s));
    EXPECT(calls(&o) == 1 && o.buf == NULL); /* before the call returned */
    EXPECT(holds(&s, "fifteen bytes!!", NULL)); /* the copy in the handle (valgrind: no read of the freed buffer) */
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&o) == 1);

    /* NULL data with length 0: the empty string, released at once like any short one */
    owner_t e;
    e.buf = NULL;
    e.len = 0;
    atomic_init(&e.calls, 0);
    EXPECT_STATUS(DT_OK, dt_str_from_external(NULL, 0, release_owner, &e, &s));
    EXPECT(calls(&e) == 1 && dt_str_len(&s) == 0 && holds(&s, "", NULL));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&e) == 1);
}

static void a_null_release_is_for_memory_that_outlives_the_program(void) {
    static const char forever[] = "static bytes that outlive every handle of them";
    dt_str s, copy;
    EXPECT_STATUS(DT_OK, dt_str_from_external((const uint8_t *)forever, sizeof forever - 1, NULL, NULL, &s));
    const uint8_t *at = NULL;
    EXPECT(holds(&s, forever, &at) && at == (const uint8_t *)forever);
    EXPECT_STATUS(DT_OK, dt_str_clone(&s, &copy));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT_STATUS(DT_OK, dt_str_release(&copy));
    EXPECT_STATUS(DT_OK, dt_str_from_external_utf8(LIT("short, static"), NULL, NULL, &s));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

/* Every error is a status, leaves *out as it was, and never calls release: the caller
 * still owns (and here frees) the memory. */
static void errors_are_statuses_and_never_release(void) {
    owner_t o;
    owner_init(&o, LONG_TEXT);
    dt_str s = {1, 2};
    for (int text = 0; text < 2; text++) {
        dt_status (*from)(const uint8_t *, size_t, dt_release_fn, void *, dt_str *) =
            text ? dt_str_from_external_utf8 : dt_str_from_external;
        EXPECT_STATUS(DT_ERR_NULL, from(NULL, 3, release_owner, &o, &s));
        EXPECT_STATUS(DT_ERR_NULL, from(o.buf, o.len, release_owner, &o, NULL));
        /* a dummy pointer: the length is refused before any byte is read */
        const uint8_t *dummy = (const uint8_t *)"x";
        EXPECT_STATUS(DT_ERR_TOO_LONG, from(dummy, (size_t)DT_MAX_LEN + 1, release_owner, &o, &s));
        EXPECT_STATUS(DT_ERR_TOO_LONG, from(dummy, SIZE_MAX, release_owner, &o, &s));
        /* the control block's allocation fails */
        dt_test_fail_allocations(64);
        EXPECT_STATUS(DT_ERR_ALLOC, from(o.buf, o.len, release_owner, &o, &s));
        dt_test_fail_allocations(0);
    }
    EXPECT(s.w0 == 1 && s.w1 == 2);
    EXPECT(calls(&o) == 0 && o.buf != NULL);
    free(o.buf);
}

static void the_text_variant_refuses_invalid_utf8(void) {
    owner_t o;
    owner_init(&o, "a long run of bytes that is not text: \xff");
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_ERR_UTF8, dt_str_from_external_utf8(o.buf, o.len, release_owner, &o, &s));
    EXPECT(s.w0 == 0 && calls(&o) == 0);
    /* the same bytes are a fine byte string */
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_owner, &o, &s));
    EXPECT(dt_str_is_utf8(&s) == 0);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&o) == 1);

    owner_t bad_short;
    owner_init(&bad_short, "\xc3");
    EXPECT_STATUS(DT_ERR_UTF8, dt_str_from_external_utf8(bad_short.buf, bad_short.len, release_owner, &bad_short, &s));
    EXPECT(calls(&bad_short) == 0);
    free(bad_short.buf);

    owner_t text;
    owner_init(&text, "texte d\xc3\xa9j\xc3\xa0 connu, plus long que quinze octets");
    uint8_t *buf = text.buf;
    EXPECT_STATUS(DT_OK, dt_str_from_external_utf8(text.buf, text.len, release_owner, &text, &s));
    const uint8_t *at = NULL;
    EXPECT(holds(&s, "texte d\xc3\xa9j\xc3\xa0 connu, plus long que quinze octets", &at) && at == buf);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&text) == 1);
}

/* A release that uses the library: makes a string, interns it, and makes (and releases)
 * an external string of its own. */
static int reentered_ok;

static void release_reentering(void *ctx) {
    dt_str s = {0, 0}, inner = {0, 0};
    dt_atom a = {0};
    owner_t nested;
    owner_init(&nested, "an external string made inside a release callback");
    reentered_ok = dt_str_from_bytes(LIT("a string made inside a release callback"), &s) == DT_OK &&
                   dt_table_intern_str(dt_table_global(), &s, &a) == DT_OK && dt_atom_release(&a) == DT_OK &&
                   dt_str_release(&s) == DT_OK &&
                   dt_str_from_external(nested.buf, nested.len, release_owner, &nested, &inner) == DT_OK &&
                   dt_str_release(&inner) == DT_OK && calls(&nested) == 1;
    release_owner(ctx);
}

static void a_release_may_call_back_into_the_library(void) {
    owner_t o;
    owner_init(&o, LONG_TEXT);
    dt_str s;
    reentered_ok = 0;
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_reentering, &o, &s));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&o) == 1 && reentered_ok);

    owner_t short_owner; /* released from inside dt_str_from_external itself */
    owner_init(&short_owner, "short");
    reentered_ok = 0;
    EXPECT_STATUS(DT_OK, dt_str_from_external(short_owner.buf, short_owner.len, release_reentering, &short_owner, &s));
    EXPECT(calls(&short_owner) == 1 && reentered_ok);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

/* A piece list holds a reference: its free is the last release, and a release that runs
 * there may use the library (objects included). */
static void release_making_pieces(void *ctx) {
    dt_pieces *p = NULL;
    reentered_ok = dt_pieces_new(&p) == DT_OK && dt_pieces_append_bytes(p, LIT("inside a release")) == DT_OK &&
                   dt_pieces_free(p) == DT_OK;
    release_owner(ctx);
}

static void a_piece_list_keeps_the_string_until_freed(void) {
    owner_t o;
    owner_init(&o, LONG_TEXT);
    dt_str s;
    dt_pieces *p = NULL;
    reentered_ok = 0;
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_making_pieces, &o, &s));
    EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
    EXPECT_STATUS(DT_OK, dt_pieces_append_str(p, &s));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT_STATUS(DT_OK, dt_pieces_append_bytes(p, LIT("!")));
    EXPECT(calls(&o) == 0 && dt_pieces_len(p) == strlen(LONG_TEXT) + 1);
    dt_str joined; /* two pieces joined: a new string (valgrind: the caller's bytes still live) */
    EXPECT_STATUS(DT_OK, dt_pieces_to_str(p, &joined));
    EXPECT(holds(&joined, "bytes the C program owns, longer than fifteen!", NULL));
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
    EXPECT(calls(&o) == 1 && reentered_ok);
    EXPECT_STATUS(DT_OK, dt_str_release(&joined));
}

static void interning_copies_the_bytes(void) {
    static const char text[] = "test_external.c: an external string interned into the global table";
    owner_t o;
    owner_init(&o, text);
    uint8_t *buf = o.buf;
    dt_str s;
    dt_atom atom, again;
    EXPECT_STATUS(DT_OK, dt_str_from_external(o.buf, o.len, release_owner, &o, &s));
    EXPECT_STATUS(DT_OK, dt_table_intern_str(dt_table_global(), &s, &atom));
    const uint8_t *ad = NULL;
    size_t al = 0;
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&atom, &ad, &al));
    EXPECT(ad != buf && bytes_equal(ad, al, text)); /* the table's own copy */
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(calls(&o) == 1); /* the atom keeps no hold on the caller's memory */
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&atom, &ad, &al));
    EXPECT(bytes_equal(ad, al, text)); /* valgrind: read from the table, not the freed buffer */
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(), LIT(text), &again));
    EXPECT(dt_atom_equal(&atom, &again));
    EXPECT_STATUS(DT_OK, dt_atom_release(&again));
    EXPECT_STATUS(DT_OK, dt_atom_release(&atom));
}

int main(void) {
    RUN(a_long_string_reads_the_callers_memory);
    RUN(clones_and_slices_release_once_in_any_order);
    RUN(the_last_release_may_come_from_another_thread);
    RUN(four_threads_release_each_string_once);
    RUN(short_strings_are_copied_and_released_at_once);
    RUN(a_null_release_is_for_memory_that_outlives_the_program);
    RUN(errors_are_statuses_and_never_release);
    RUN(the_text_variant_refuses_invalid_utf8);
    RUN(a_release_may_call_back_into_the_library);
    RUN(a_piece_list_keeps_the_string_until_freed);
    RUN(interning_copies_the_bytes);
    FINISH();
}
