/* Garbage dt_str / dt_atom handles: what the header's "What is checked" says is detected
 * comes back as a status, with nothing read through the words. (What is not detected,
 * forged words with a handle's shape and copies of released handles, is undefined
 * behaviour and so not exercised.) */
#include "harness.h"

/* Each call that takes a dt_str reports `expected` for `s`. */
static void str_reports(dt_str s, dt_status expected) {
    dt_str out = {0, 0};
    dt_atom atom = {0};
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(expected, dt_str_bytes(&s, &data, &len));
    EXPECT_STATUS(expected, dt_str_clone(&s, &out));
    EXPECT_STATUS(expected, dt_str_slice(&s, 0, 0, &out));
    EXPECT_STATUS(expected, dt_table_intern_str(dt_table_global(), &s, &atom));
    EXPECT(dt_str_len(&s) == 0 && dt_str_equal(&s, &s) == 0);
    EXPECT_STATUS(expected, dt_str_release(&s));
    EXPECT(out.w0 == 0 && out.w1 == 0 && atom.w == 0 && data == NULL); /* untouched */
}

static void atom_reports(dt_atom a, dt_status expected) {
    dt_atom out = {0};
    dt_str s = {0, 0};
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(expected, dt_atom_bytes(&a, &data, &len));
    EXPECT_STATUS(expected, dt_atom_clone(&a, &out));
    EXPECT_STATUS(expected, dt_atom_to_str(&a, &s));
    EXPECT(dt_atom_hash(&a) == 0 && !dt_atom_equal(&a, &a));
    EXPECT_STATUS(expected, dt_atom_release(&a));
    EXPECT(out.w == 0 && s.w0 == 0 && data == NULL);
}

static void never_initialised_and_released_handles_are_told_apart(void) {
    str_reports((dt_str){0, 0}, DT_ERR_INVALID_HANDLE);
    str_reports((dt_str){0, DT_RELEASED_MARK}, DT_ERR_RELEASED);
    atom_reports((dt_atom){0}, DT_ERR_INVALID_HANDLE);
    atom_reports((dt_atom){DT_RELEASED_MARK}, DT_ERR_RELEASED);
}

static void string_words_without_a_strings_shape_are_invalid(void) {
    str_reports((dt_str){0x3, 0}, DT_ERR_INVALID_HANDLE);           /* tag 0b11 (owned) without its block */
    str_reports((dt_str){0x1 | (16 << 2), 0}, DT_ERR_INVALID_HANDLE); /* inline, 16 bytes */
    str_reports((dt_str){0x1004, 20}, DT_ERR_INVALID_HANDLE);        /* misaligned block */
    /* A block range past DT_MAX_LEN: offset 0xFFFFFFFF + length 2. */
    str_reports((dt_str){0x1000, (0xFFFFFFFFull << 32) | 2}, DT_ERR_INVALID_HANDLE);
    str_reports((dt_str){0x2 | (5 << 2), 0}, DT_ERR_INVALID_HANDLE); /* static, 5 bytes at NULL */
}

static void atom_words_without_an_atoms_shape_are_invalid(void) {
    atom_reports((dt_atom){0x1004}, DT_ERR_INVALID_HANDLE);            /* misaligned pointer */
    atom_reports((dt_atom){0x1006}, DT_ERR_INVALID_HANDLE);            /* unknown tag */
    atom_reports((dt_atom){0x1 | (8 << 1)}, DT_ERR_INVALID_HANDLE);    /* inline, 8 bytes */
    atom_reports((dt_atom){0x3 | (0x41ull << 8) | (0xFFull << 16)}, DT_ERR_INVALID_HANDLE); /* padding */
}

static void misaligned_handle_pointers_are_invalid(void) {
    uint64_t words[3] = {0, 0, 0};
    dt_str *s = (dt_str *)(void *)((char *)words + 4);
    dt_atom *a = (dt_atom *)(void *)((char *)words + 4);
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_str_bytes(s, &data, &len));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_str_release(s));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_atom_bytes(a, &data, &len));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_atom_release(a));
}

int main(void) {
    RUN(never_initialised_and_released_handles_are_told_apart);
    RUN(string_words_without_a_strings_shape_are_invalid);
    RUN(atom_words_without_an_atoms_shape_are_invalid);
    RUN(misaligned_handle_pointers_are_invalid);
    FINISH();
}
