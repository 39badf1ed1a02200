/* dt_str_*: byte strings, their handles' life cycle, and every error path. */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <stdlib.h>

#include "harness.h"

static dt_str make(const char *text) {
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_OK, dt_str_from_bytes((const uint8_t *)text, strlen(text), &s));
    return s;
}

static int holds(const dt_str *s, const char *text) {
    const uint8_t *data = NULL;
    size_t len = 0;
    return dt_str_bytes(s, &data, &len) == DT_OK && bytes_equal(data, len, text) && dt_str_len(s) == len;
}

static void any_bytes_round_trip_at_every_size(void) {
    uint8_t buf[300];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 37 + 1);
    buf[3] = 0; /* NUL inside is fine */
    buf[4] = 0xff; /* so is non-UTF-8 */
    size_t sizes[] = {0, 1, 7, 8, 15, 16, 17, 100, 300};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        dt_str s;
        EXPECT_STATUS(DT_OK, dt_str_from_bytes(buf, sizes[k], &s));
        const uint8_t *data = NULL;
        size_t len = 99;
        EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &data, &len));
        EXPECT(len == sizes[k] && dt_str_len(&s) == sizes[k]);
        EXPECT(len == 0 || memcmp(data, buf, len) == 0);
        EXPECT(data != buf); /* a copy */
        EXPECT(dt_str_is_utf8(&s) == (sizes[k] <= 4));
        EXPECT_STATUS(DT_OK, dt_str_release(&s));
    }
}

static void short_strings_live_inside_the_handle(void) {
    dt_str s = make("fifteen bytes!!");
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &data, &len));
    EXPECT(len == 15);
    EXPECT(data >= (const uint8_t *)&s && data + len <= (const uint8_t *)(&s + 1));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

static void empty_and_clone(void) {
    dt_str e;
    EXPECT_STATUS(DT_OK, dt_str_empty(&e));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_empty(NULL));
    EXPECT(dt_str_len(&e) == 0 && holds(&e, ""));
    EXPECT_STATUS(DT_OK, dt_str_release(&e));

    dt_str s = make("a string long enough to live in a heap block");
    dt_str c;
    EXPECT_STATUS(DT_OK, dt_str_clone(&s, &c));
    const uint8_t *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &a, &la));
    EXPECT_STATUS(DT_OK, dt_str_bytes(&c, &b, &lb));
    EXPECT(a == b && la == lb); /* the same block, no copy */
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(holds(&c, "a string long enough to live in a heap block"));
    EXPECT_STATUS(DT_OK, dt_str_release(&c));
}

static void released_and_invalid_handles_are_reported(void) {
    dt_str s = make("a string long enough to live in a heap block");
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT(s.w0 == 0 && s.w1 == DT_RELEASED_MARK);
    EXPECT_STATUS(DT_ERR_RELEASED, dt_str_release(&s));
    dt_str out = {0, 0};
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_ERR_RELEASED, dt_str_clone(&s, &out));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_str_bytes(&s, &data, &len));
    EXPECT(dt_str_len(&s) == 0 && dt_str_is_utf8(&s) == 0 && dt_str_equal(&s, &s) == 0);

    dt_str zero = {0, 0};
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_str_release(&zero));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_str_slice(&zero, 0, 0, &out));
    dt_str garbage = {3, 0}; /* tag 0b11 (owned) without its block */
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_str_release(&garbage));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_intern_str(dt_table_global(), &garbage, &(dt_atom){0}));
    EXPECT(out.w0 == 0 && out.w1 == 0 && data == NULL); /* untouched */

    EXPECT_STATUS(DT_ERR_NULL, dt_str_release(NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_clone(NULL, &out));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_bytes(NULL, &data, &len));
    EXPECT(dt_str_len(NULL) == 0 && dt_str_is_utf8(NULL) == 0 && dt_str_equal(NULL, NULL) == 0);
}

static void bad_arguments_to_from_bytes(void) {
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_ERR_NULL, dt_str_from_bytes(NULL, 3, &s));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_from_bytes(LIT("abc"), NULL));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_str_from_bytes((const uint8_t *)"x", (size_t)DT_MAX_LEN + 1, &s));
    EXPECT(s.w0 == 0 && s.w1 == 0);
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(NULL, 0, &s));
    EXPECT(dt_str_len(&s) == 0);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    dt_str t = make("abc");
    const uint8_t *data = NULL;
    EXPECT_STATUS(DT_ERR_NULL, dt_str_bytes(&t, &data, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_bytes(&t, NULL, &(size_t){0}));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_clone(&t, NULL));
    EXPECT_STATUS(DT_OK, dt_str_release(&t));
}

static void allocation_failure_is_dt_err_alloc(void) {
    size_t big = 1 << 20;
    uint8_t *buf = calloc(big, 1);
    dt_str s = {0, 0};
    dt_test_fail_allocations(big / 2);
    EXPECT_STATUS(DT_ERR_ALLOC, dt_str_from_bytes(buf, big, &s));
    dt_test_fail_allocations(0);
    EXPECT(s.w0 == 0);
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(buf, big, &s));
    EXPECT(dt_str_len(&s) == big);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    free(buf);
}

static void slices_share_and_check_their_range(void) {
    dt_str s = make("0123456789abcdefghijklmnopqrstuvwxyz");
    dt_str mid, tail, none;
    EXPECT_STATUS(DT_OK, dt_str_slice(&s, 10, 36, &tail));
    EXPECT_STATUS(DT_OK, dt_str_slice(&s, 3, 6, &mid));
    EXPECT_STATUS(DT_OK, dt_str_slice(&s, 5, 5, &none));
    EXPECT(holds(&tail, "abcdefghijklmnopqrstuvwxyz") && holds(&mid, "345") && holds(&none, ""));
    const uint8_t *whole = NULL, *part = NULL;
    size_t n = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &whole, &n));
    EXPECT_STATUS(DT_OK, dt_str_bytes(&tail, &part, &n));
    EXPECT(part == whole + 10); /* O(1): the same block */
    dt_str out = {0, 0};
    EXPECT_STATUS(DT_ERR_RANGE, dt_str_slice(&s, 6, 3, &out));
    EXPECT_STATUS(DT_ERR_RANGE, dt_str_slice(&s, 0, 37, &out));
    EXPECT_STATUS(DT_ERR_RANGE, dt_str_slice(&s, 37, 37, &out));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_slice(&s, 0, 1, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_slice(NULL, 0, 0, &out));
    EXPECT(out.w0 == 0);
    /* out may be the input itself; the input's reference is then not released, so a
     * copy of its words must release it later. */
    dt_str keep = s;
    EXPECT_STATUS(DT_OK, dt_str_slice(&s, 0, 3, &s));
    EXPECT(holds(&s, "012"));
    dt_str handles[] = {s, keep, mid, tail, none};
    for (size_t i = 0; i < 5; i++) EXPECT_STATUS(DT_OK, dt_str_release(&handles[i]));
}

static void concat_joins_any_handles(void) {
    dt_str parts[3] = {make("short "), make("and a long part that lives on the heap "), {0, 0}};
    EXPECT_STATUS(DT_OK, dt_str_slice(&parts[1], 0, 5, &parts[2]));
    dt_str joined, empty;
    EXPECT_STATUS(DT_OK, dt_str_concat(parts, 3, &joined));
    EXPECT(holds(&joined, "short and a long part that lives on the heap and a"));
    EXPECT_STATUS(DT_OK, dt_str_concat(NULL, 0, &empty));
    EXPECT(dt_str_len(&empty) == 0);
    EXPECT_STATUS(DT_ERR_NULL, dt_str_concat(NULL, 2, &empty));
    EXPECT_STATUS(DT_ERR_NULL, dt_str_concat(parts, 3, NULL));
    dt_str with_bad[2] = {parts[0], {0, 0}};
    dt_str out = {0, 0};
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_str_concat(with_bad, 2, &out));
    EXPECT(out.w0 == 0);
    for (size_t i = 0; i < 3; i++) EXPECT_STATUS(DT_OK, dt_str_release(&parts[i]));
    EXPECT_STATUS(DT_OK, dt_str_release(&joined));
    EXPECT_STATUS(DT_OK, dt_str_release(&empty));
}

static void equality_is_by_bytes(void) {
    dt_str a = make("the same bytes, twice, on the heap");
    dt_str b = make("the same bytes, twice, on the heap");
    dt_str c = make("other bytes");
    dt_str inline_a = make("short"), inline_b = make("short");
    EXPECT(dt_str_equal(&a, &b) == 1 && dt_str_equal(&a, &c) == 0);
    EXPECT(dt_str_equal(&inline_a, &inline_b) == 1 && dt_str_equal(&a, &inline_a) == 0);
    EXPECT(dt_str_equal(&a, NULL) == 0);
    dt_str all[] = {a, b, c, inline_a, inline_b};
    for (size_t i = 0; i < 5; i++) EXPECT_STATUS(DT_OK, dt_str_release(&all[i]));
}

static void interning_adopts_the_strings_block(void) {
    dt_str s = make("test_str.c: a fresh string that no table has seen yet");
    dt_atom atom;
    EXPECT_STATUS(DT_OK, dt_table_intern_str(dt_table_global(), &s, &atom));
    const uint8_t *sd = NULL, *ad = NULL;
    size_t sl = 0, al = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &sd, &sl));
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&atom, &ad, &al));
    EXPECT(sd == ad && sl == al); /* adopted: no copy */
    dt_atom again;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(), sd, sl, &again));
    EXPECT(dt_atom_equal(&atom, &again));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_str(dt_table_global(), &s, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_str(dt_table_global(), NULL, &again));
    EXPECT_STATUS(DT_OK, dt_atom_release(&again));
    EXPECT_STATUS(DT_OK, dt_atom_release(&atom));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

int main(void) {
    RUN(any_bytes_round_trip_at_every_size);
    RUN(short_strings_live_inside_the_handle);
    RUN(empty_and_clone);
    RUN(released_and_invalid_handles_are_reported);
    RUN(bad_arguments_to_from_bytes);
    RUN(allocation_failure_is_dt_err_alloc);
    RUN(slices_share_and_check_their_range);
    RUN(concat_joins_any_handles);
    RUN(equality_is_by_bytes);
    RUN(interning_adopts_the_strings_block);
    FINISH();
}
