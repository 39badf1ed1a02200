/* dt_builder_*: appends, finishing (consuming), and error paths. */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <stdlib.h>

#include "harness.h"

static void appends_then_finish(void) {
    dt_builder *b = NULL;
    EXPECT_STATUS(DT_OK, dt_builder_new(8, &b));
    EXPECT(dt_builder_len(b) == 0);
    dt_str part;
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(LIT(" and a dt_str, appended by reference"), &part));
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, LIT("some bytes \x00\xff")));
    EXPECT_STATUS(DT_OK, dt_builder_append_str(b, &part));
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, NULL, 0));
    size_t expected = 13 + 36;
    EXPECT(dt_builder_len(b) == expected);
    dt_str s;
    EXPECT_STATUS(DT_OK, dt_builder_finish(b, &s));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &data, &len));
    EXPECT(len == expected && memcmp(data, "some bytes \x00\xff and a dt_str", 26) == 0);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT_STATUS(DT_OK, dt_str_release(&part));
}

static void many_appends_grow_the_builder(void) {
    dt_builder *b = NULL;
    EXPECT_STATUS(DT_OK, dt_builder_new(0, &b));
    for (int i = 0; i < 10000; i++) EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, LIT("0123456789")));
    EXPECT(dt_builder_len(b) == 100000);
    dt_str s;
    EXPECT_STATUS(DT_OK, dt_builder_finish(b, &s));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &data, &len));
    EXPECT(len == 100000 && memcmp(data + 99990, "0123456789", 10) == 0);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

static void free_without_finishing_and_finish_consumes(void) {
    dt_builder *b = NULL;
    EXPECT_STATUS(DT_OK, dt_builder_new(100, &b));
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, LIT("discarded")));
    EXPECT_STATUS(DT_OK, dt_builder_free(b));
    /* finish with a NULL out still frees the builder (valgrind sees no leak). */
    EXPECT_STATUS(DT_OK, dt_builder_new(100, &b));
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, LIT("also discarded, but through finish")));
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_finish(b, NULL));
}

static void bad_arguments(void) {
    dt_builder *b = NULL;
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_new(0, NULL));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_builder_new((size_t)DT_MAX_LEN + 1, &b));
    EXPECT(b == NULL);
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_append_bytes(NULL, LIT("x")));
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_append_str(NULL, &(dt_str){0, 0}));
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_finish(NULL, &(dt_str){0, 0}));
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_free(NULL));
    EXPECT(dt_builder_len(NULL) == 0);
    EXPECT_STATUS(DT_OK, dt_builder_new(0, &b));
    EXPECT_STATUS(DT_ERR_NULL, dt_builder_append_bytes(b, NULL, 2));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_builder_append_bytes(b, (const uint8_t *)"x", (size_t)DT_MAX_LEN + 1));
    dt_str released = {0, DT_RELEASED_MARK};
    EXPECT_STATUS(DT_ERR_RELEASED, dt_builder_append_str(b, &released));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_builder_append_str(b, &(dt_str){0, 0}));
    EXPECT(dt_builder_len(b) == 0);
    /* Another kind of object where a builder is expected. */
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&in));
    dt_builder *wrong = (dt_builder *)(void *)in;
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_builder_append_bytes(wrong, LIT("x")));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_builder_finish(wrong, &(dt_str){0, 0}));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_builder_free(wrong));
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
    EXPECT_STATUS(DT_OK, dt_builder_free(b));
}

static void allocation_failure_leaves_the_builder_usable(void) {
    dt_builder *b = NULL;
    dt_test_fail_allocations(1 << 20);
    EXPECT_STATUS(DT_ERR_ALLOC, dt_builder_new(2 << 20, &b));
    EXPECT(b == NULL);
    EXPECT_STATUS(DT_OK, dt_builder_new(16, &b));
    uint8_t *big = calloc(2 << 20, 1);
    EXPECT_STATUS(DT_ERR_ALLOC, dt_builder_append_bytes(b, big, 2 << 20));
    dt_test_fail_allocations(0);
    EXPECT(dt_builder_len(b) == 0);
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, big, 2 << 20));
    EXPECT(dt_builder_len(b) == (size_t)2 << 20);
    free(big);
    EXPECT_STATUS(DT_OK, dt_builder_free(b));
}

int main(void) {
    RUN(appends_then_finish);
    RUN(many_appends_grow_the_builder);
    RUN(free_without_finishing_and_finish_consumes);
    RUN(bad_arguments);
    RUN(allocation_failure_leaves_the_builder_usable);
    FINISH();
}
