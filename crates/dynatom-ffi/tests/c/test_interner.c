/* dt_interner_*: 4-byte symbols, UTF-8 only, limits, and every error path. */
#include "harness.h"

static void symbols_are_stable_and_resolve(void) {
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&in));
    EXPECT(dt_interner_len(in) == 0);
    uint32_t a = 0, b = 0, again = 0;
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("while"), &a));
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("identifier_with_a_long_name_over_32_bytes"), &b));
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("while"), &again));
    EXPECT(a != 0 && b != 0 && a != b && a == again);
    EXPECT(dt_interner_len(in) == 2);

    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_interner_resolve(in, b, &data, &len));
    EXPECT(bytes_equal(data, len, "identifier_with_a_long_name_over_32_bytes"));
    uint32_t found = 0;
    EXPECT_STATUS(DT_OK, dt_interner_lookup_bytes(in, LIT("while"), &found));
    EXPECT(found == a);
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_interner_lookup_bytes(in, LIT("for"), &found));
    EXPECT(found == a); /* untouched on error */

    /* The empty string is a string like any other, and may come with a NULL pointer. */
    uint32_t empty = 0;
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, NULL, 0, &empty));
    EXPECT_STATUS(DT_OK, dt_interner_resolve(in, empty, &data, &len));
    EXPECT(len == 0);
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
}

static void resolved_text_stays_put_while_the_interner_grows(void) {
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&in));
    uint32_t first = 0;
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("first"), &first));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_interner_resolve(in, first, &data, &len));
    char name[32];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(name, sizeof name, "name_%d", i);
        uint32_t sym = 0;
        EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, (const uint8_t *)name, (size_t)n, &sym));
    }
    EXPECT(dt_interner_len(in) == 5001);
    EXPECT(bytes_equal(data, len, "first"));
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
}

static void bad_input_is_an_error_and_adds_nothing(void) {
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&in));
    uint32_t sym = 0;
    EXPECT_STATUS(DT_ERR_UTF8, dt_interner_intern_bytes(in, LIT("\xff\xfe"), &sym));
    EXPECT_STATUS(DT_ERR_UTF8, dt_interner_lookup_bytes(in, LIT("\xc3"), &sym));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_intern_bytes(in, NULL, 3, &sym));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_intern_bytes(in, LIT("x"), NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_intern_bytes(NULL, LIT("x"), &sym));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_lookup_bytes(NULL, LIT("x"), &sym));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_interner_intern_bytes(in, (const uint8_t *)"x", (size_t)DT_MAX_LEN + 1, &sym));
    EXPECT(sym == 0);
    EXPECT(dt_interner_len(in) == 0);

    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_ERR_INVALID_SYMBOL, dt_interner_resolve(in, 0, &data, &len));
    EXPECT_STATUS(DT_ERR_INVALID_SYMBOL, dt_interner_resolve(in, 1, &data, &len));
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("x"), &sym));
    EXPECT_STATUS(DT_ERR_INVALID_SYMBOL, dt_interner_resolve(in, sym + 1, &data, &len));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_resolve(in, sym, NULL, &len));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_resolve(in, sym, &data, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_resolve(NULL, sym, &data, &len));
    EXPECT(data == NULL);
    EXPECT(dt_interner_len(NULL) == 0);
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_new(NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_new_with_limits(1, 0, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_interner_free(NULL));
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
}

static void limits_give_dt_err_limit(void) {
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new_with_limits(2, 0, &in));
    uint32_t sym = 0;
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("a"), &sym));
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("b"), &sym));
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("a"), &sym)); /* present: no new symbol */
    EXPECT_STATUS(DT_ERR_LIMIT, dt_interner_intern_bytes(in, LIT("c"), &sym));
    EXPECT(dt_interner_len(in) == 2);
    EXPECT_STATUS(DT_OK, dt_interner_free(in));

    EXPECT_STATUS(DT_OK, dt_interner_new_with_limits(0, 64, &in));
    EXPECT_STATUS(DT_ERR_LIMIT,
                  dt_interner_intern_bytes(in, LIT("more than sixty-four bytes of interner memory, surely"), &sym));
    EXPECT(dt_interner_len(in) == 0);
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
}

static void other_kinds_of_object_are_rejected(void) {
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&in));
    /* A live object of the same size whose first word is not the interner's magic. */
    uint64_t not_an_interner[4] = {1, 2, 3, 4};
    dt_interner *fake = (dt_interner *)(void *)not_an_interner;
    uint32_t sym = 0;
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_interner_intern_bytes(fake, LIT("x"), &sym));
    EXPECT(dt_interner_len(fake) == 0);
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_interner_free(fake));
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
}

int main(void) {
    RUN(symbols_are_stable_and_resolve);
    RUN(resolved_text_stays_put_while_the_interner_grows);
    RUN(bad_input_is_an_error_and_adds_nothing);
    RUN(limits_give_dt_err_limit);
    RUN(other_kinds_of_object_are_rejected);
    FINISH();
}
