/* dt_atom_*: atoms of the global table, their handles' life cycle, and error paths. */
#include "harness.h"

/* The atoms of this file live in the global table. */
#define GLOBAL dt_table_global()

static dt_atom atom_of(const char *text) {
    dt_atom a = {0};
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(GLOBAL, (const uint8_t *)text, strlen(text), &a));
    return a;
}

static void equal_bytes_are_the_same_atom(void) {
    dt_atom a = atom_of("content-type: a header name long enough for the table");
    dt_atom b = atom_of("content-type: a header name long enough for the table");
    dt_atom c = atom_of("content-length: another one, also filed in the table");
    EXPECT(dt_atom_equal(&a, &b) && !dt_atom_equal(&a, &c));
    EXPECT(dt_atom_hash(&a) == dt_atom_hash(&b) && dt_atom_hash(&a) != dt_atom_hash(&c));
    dt_atom s1 = atom_of("short"), s2 = atom_of("short");
    EXPECT(dt_atom_equal(&s1, &s2) && !dt_atom_equal(&s1, &a));
    /* Any bytes: NUL and non-UTF-8. */
    dt_atom bin;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(GLOBAL, LIT("\x00\xff\xfe binary key \x01"), &bin));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&bin, &data, &len));
    EXPECT(len == 16 && memcmp(data, "\x00\xff\xfe binary key \x01", 16) == 0);
    dt_atom all[] = {a, b, c, s1, s2, bin};
    for (size_t i = 0; i < 6; i++) EXPECT_STATUS(DT_OK, dt_atom_release(&all[i]));
}

static void lookup_never_inserts(void) {
    const char *text = "test_atom.c: looked up before it exists, then after";
    dt_atom found = {0};
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_table_lookup_bytes(GLOBAL, (const uint8_t *)text, strlen(text), &found));
    EXPECT(found.w == 0);
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_table_lookup_bytes(GLOBAL, (const uint8_t *)text, strlen(text), &found));
    dt_atom made = atom_of(text);
    EXPECT_STATUS(DT_OK, dt_table_lookup_bytes(GLOBAL, (const uint8_t *)text, strlen(text), &found));
    EXPECT(dt_atom_equal(&made, &found));
    EXPECT_STATUS(DT_OK, dt_atom_release(&found));
    EXPECT_STATUS(DT_OK, dt_atom_release(&made));
    /* The last reference gone, the atom is gone from the table. */
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_table_lookup_bytes(GLOBAL, (const uint8_t *)text, strlen(text), &found));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_lookup_bytes(GLOBAL, NULL, 4, &found));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_lookup_bytes(GLOBAL, LIT("abc"), NULL));
}

static void clone_release_and_released_handles(void) {
    dt_atom a = atom_of("an atom that will be cloned and released twice over");
    dt_atom c;
    EXPECT_STATUS(DT_OK, dt_atom_clone(&a, &c));
    EXPECT(dt_atom_equal(&a, &c));
    EXPECT(!dt_atom_equal(NULL, &c) && !dt_atom_equal(&c, NULL) && !dt_atom_equal(NULL, NULL));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
    EXPECT(a.w == DT_RELEASED_MARK);
    EXPECT_STATUS(DT_ERR_RELEASED, dt_atom_release(&a));
    EXPECT(!dt_atom_equal(&a, &a) && dt_atom_hash(&a) == 0);
    dt_atom out = {0};
    dt_str s = {0, 0};
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_ERR_RELEASED, dt_atom_clone(&a, &out));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_atom_bytes(&a, &data, &len));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_atom_to_str(&a, &s));
    dt_atom zero = {0};
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_atom_release(&zero));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_atom_clone(&zero, &out));
    EXPECT(!dt_atom_equal(&zero, &zero));
    dt_atom garbage = {0x1004}; /* a heap tag with a misaligned pointer */
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_atom_bytes(&garbage, &data, &len));
    EXPECT(out.w == 0 && s.w0 == 0 && data == NULL);
    EXPECT_STATUS(DT_ERR_NULL, dt_atom_release(NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_atom_clone(NULL, &out));
    EXPECT_STATUS(DT_ERR_NULL, dt_atom_clone(&c, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_atom_bytes(&c, NULL, &len));
    EXPECT_STATUS(DT_ERR_NULL, dt_atom_to_str(&c, NULL));
    EXPECT(dt_atom_hash(NULL) == 0);
    EXPECT_STATUS(DT_OK, dt_atom_release(&c));
}

static void a_permanent_atom_stays_after_its_last_release(void) {
    const char *text = "test_atom.c: an atom made permanent, then released";
    dt_atom a = atom_of(text);
    EXPECT(dt_atom_make_permanent(&a) == 1);
    EXPECT(dt_atom_make_permanent(&a) == 1);
    dt_memory_report report;
    EXPECT_STATUS(DT_OK, dt_table_memory_report(GLOBAL, &report));
    EXPECT(report.permanent_atoms >= 1 && report.permanent_bytes >= strlen(text));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
    /* Found with no reference left: a counted atom would be unused, and not found. */
    dt_atom found = {0};
    EXPECT_STATUS(DT_OK, dt_table_lookup_bytes(GLOBAL, (const uint8_t *)text, strlen(text), &found));
    EXPECT_STATUS(DT_OK, dt_atom_release(&found));
    dt_atom short_one = atom_of("short");
    EXPECT(dt_atom_make_permanent(&short_one) == 1);
    EXPECT(dt_atom_make_permanent(NULL) == 0);
    dt_table *local = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&local));
    dt_atom l = {0};
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(local, LIT("an atom of a table that can be freed"), &l));
    EXPECT(dt_atom_make_permanent(&l) == 0);
    EXPECT_STATUS(DT_OK, dt_atom_release(&l));
    EXPECT(dt_atom_make_permanent(&l) == 0);
    EXPECT_STATUS(DT_OK, dt_table_free(local));
}

static void short_atoms_live_in_the_word(void) {
    dt_atom a = atom_of("seven!!");
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&a, &data, &len));
    EXPECT(len == 7 && memcmp(data, "seven!!", 7) == 0);
    EXPECT(data >= (const uint8_t *)&a && data + len <= (const uint8_t *)(&a + 1));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
}

static void atom_to_str_shares_the_bytes(void) {
    dt_atom a = atom_of("an atom turned back into a string without a copy");
    dt_str s;
    EXPECT_STATUS(DT_OK, dt_atom_to_str(&a, &s));
    const uint8_t *ad = NULL, *sd = NULL;
    size_t al = 0, sl = 0;
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&a, &ad, &al));
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &sd, &sl));
    EXPECT(ad == sd && al == sl);
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
    EXPECT(dt_str_len(&s) == al); /* the string keeps the bytes alive */
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

static void bad_arguments_to_from_bytes(void) {
    dt_atom a = {0};
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_bytes(GLOBAL, NULL, 1, &a));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_bytes(GLOBAL, LIT("x"), NULL));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_table_intern_bytes(GLOBAL, (const uint8_t *)"x", (size_t)DT_MAX_LEN + 1, &a));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_table_lookup_bytes(GLOBAL, (const uint8_t *)"x", (size_t)DT_MAX_LEN + 1, &a));
    EXPECT(a.w == 0);
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(GLOBAL, NULL, 0, &a));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
}

int main(void) {
    RUN(equal_bytes_are_the_same_atom);
    RUN(lookup_never_inserts);
    RUN(clone_release_and_released_handles);
    RUN(short_atoms_live_in_the_word);
    RUN(a_permanent_atom_stays_after_its_last_release);
    RUN(atom_to_str_shares_the_bytes);
    RUN(bad_arguments_to_from_bytes);
    FINISH();
}
