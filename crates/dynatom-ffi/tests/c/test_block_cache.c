/* dt_block_cache_*: freed large blocks are kept for reuse, within the limit, until trimmed. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { BIG = 1 << 20 };

static void make_and_drop_big_strs(int n) {
    uint8_t *bytes = malloc(BIG);
    EXPECT(bytes != NULL);
    memset(bytes, 'b', BIG);
    for (int i = 0; i < n; i++) {
        dt_str s;
        EXPECT_STATUS(DT_OK, dt_str_from_bytes(bytes, BIG, &s));
        EXPECT(dt_str_len(&s) == BIG);
        EXPECT_STATUS(DT_OK, dt_str_release(&s));
    }
    free(bytes);
}

static void the_cache_is_off_by_default(void) {
    EXPECT(dt_block_cache_set_limit(0) == 0);
    make_and_drop_big_strs(1);
    EXPECT(dt_block_cache_bytes() == 0);
}

static void a_dropped_large_str_is_kept_and_trim_frees_it(void) {
    size_t previous = dt_block_cache_set_limit(64u << 20);
    dt_block_cache_trim();
    EXPECT(dt_block_cache_bytes() == 0);
    make_and_drop_big_strs(1);
    size_t kept = dt_block_cache_bytes();
    EXPECT(kept >= BIG);
    /* The next str of the class takes it back. */
    dt_str s;
    uint8_t *bytes = calloc(BIG, 1);
    EXPECT(bytes != NULL);
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(bytes, BIG, &s));
    EXPECT(dt_block_cache_bytes() == 0);
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    free(bytes);
    EXPECT(dt_block_cache_trim() == kept);
    EXPECT(dt_block_cache_bytes() == 0);
    dt_block_cache_set_limit(previous);
}

static void the_limit_bounds_the_cache(void) {
    size_t previous = dt_block_cache_set_limit(0);
    make_and_drop_big_strs(3);
    EXPECT(dt_block_cache_bytes() == 0);
    EXPECT(dt_block_cache_set_limit(2 * BIG + 4096) == 0);
    /* Three blocks live at once, then dropped: only two fit. */
    uint8_t *bytes = calloc(BIG, 1);
    EXPECT(bytes != NULL);
    dt_str s[3];
    for (int i = 0; i < 3; i++) EXPECT_STATUS(DT_OK, dt_str_from_bytes(bytes, BIG, &s[i]));
    for (int i = 0; i < 3; i++) EXPECT_STATUS(DT_OK, dt_str_release(&s[i]));
    free(bytes);
    EXPECT(dt_block_cache_bytes() > BIG && dt_block_cache_bytes() <= 2 * BIG + 4096);
    EXPECT(dt_block_cache_set_limit(previous) == 2 * BIG + 4096);
    dt_block_cache_trim();
}

int main(void) {
    RUN(the_cache_is_off_by_default);
    RUN(a_dropped_large_str_is_kept_and_trim_frees_it);
    RUN(the_limit_bounds_the_cache);
    FINISH();
}
