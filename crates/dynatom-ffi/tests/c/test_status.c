/* dt_status_message, and the two test hooks: a panic caught at the boundary, and
 * allocation failure reported as DT_ERR_ALLOC. */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <stdlib.h>

#include "harness.h"

static void every_status_has_a_distinct_message(void) {
    const char *seen[DT_ERR_INTERNED_BEFORE + 1];
    for (int s = DT_OK; s <= DT_ERR_INTERNED_BEFORE; s++) {
        seen[s] = dt_status_message((dt_status)s);
        EXPECT(seen[s] != NULL && strlen(seen[s]) > 0);
        for (int t = DT_OK; t < s; t++) EXPECT(strcmp(seen[s], seen[t]) != 0);
    }
    EXPECT(strcmp(dt_status_message(DT_OK), "success") == 0);
}

static void unknown_statuses_have_a_message_too(void) {
    EXPECT(strcmp(dt_status_message((dt_status)99), "unknown status") == 0);
    EXPECT(strcmp(dt_status_message((dt_status)-1), "unknown status") == 0);
}

static void a_panic_comes_back_as_a_status(void) {
    EXPECT_STATUS(DT_ERR_PANIC, dt_test_panic());
    /* The library still works after it. */
    dt_interner *interner = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&interner));
    EXPECT_STATUS(DT_OK, dt_interner_free(interner));
}

static void armed_allocation_failure_is_reported(void) {
    /* Every request fails: even the object's own allocation (an empty piece list
     * allocates nothing else, so nothing infallible is hit). */
    dt_pieces *pieces = NULL;
    dt_test_fail_allocations(1);
    EXPECT_STATUS(DT_ERR_ALLOC, dt_pieces_new(&pieces));
    dt_test_fail_allocations(0);
    EXPECT(pieces == NULL);
    EXPECT_STATUS(DT_OK, dt_pieces_new(&pieces));
    EXPECT_STATUS(DT_OK, dt_pieces_free(pieces));
}

int main(void) {
    RUN(every_status_has_a_distinct_message);
    RUN(unknown_statuses_have_a_message_too);
    RUN(a_panic_comes_back_as_a_status);
    RUN(armed_allocation_failure_is_reported);
    FINISH();
}
