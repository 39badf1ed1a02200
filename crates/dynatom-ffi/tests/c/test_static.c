/* dt_static_set_*: a static set declared by a header that dt-static-header wrote at test
 * time (scripts/c-tests generates test_static_atoms.h from static_atoms.txt and
 * test_static_early.h from static_atoms_early.txt), registered before the first intern:
 * every table's atom of its texts is then the header's constant, so C can switch on it. */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include "harness.h"
/* Registered by hand: the first case interns a text of "early" before its set, which a
 * header registering from a constructor would refuse before main. */
#define DT_STATIC_ATOMS_REGISTER_BY_HAND
#include "test_static_atoms.h"
#include "test_static_early.h"

/* Interns (data, len) in the global table and names it by switching on the word. */
static const char *classify(const uint8_t *data, size_t len) {
    dt_atom atom;
    if (dt_table_intern_bytes(dt_table_global(), data, len, &atom) != DT_OK) return "error";
    const char *kind;
    switch (atom.w) {
    case TEST_CONTENT_TYPE: kind = "content-type"; break;
    case TEST_CONTENT_LENGTH: kind = "content-length"; break;
    case TEST_ACCEPT: kind = "accept"; break;
    case TEST_PATH: kind = "path"; break;
    case TEST_LONG: kind = "long"; break;
    default: kind = "other"; break;
    }
    dt_atom_release(&atom);
    return kind;
}

/* Runs first: its text is interned before its set is registered. */
static void a_text_interned_before_its_set_is_reported(void) {
    dt_atom early;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(),
                                               LIT("a text interned before its static set was registered"), &early));
    EXPECT(early.w != EARLY_EARLY);
    EXPECT_STATUS(DT_ERR_INTERNED_BEFORE, early_static_atoms_register());
    /* Refused whole: nothing is registered, so the text keeps one atom, the ordinary one. */
    dt_atom declared, again;
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_name(LIT("early"), LIT("EARLY"), &declared));
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(),
                                               LIT("a text interned before its static set was registered"), &again));
    EXPECT(dt_atom_equal(&again, &early));
    EXPECT_STATUS(DT_OK, dt_atom_release(&again));
    /* Once the early atom is released, the set registers, and every way to the text meets
     * the header's word. */
    EXPECT_STATUS(DT_OK, dt_atom_release(&early));
    EXPECT_STATUS(DT_OK, early_static_atoms_register());
    EXPECT_STATUS(DT_OK, dt_static_set_lookup_name(LIT("early"), LIT("EARLY"), &declared));
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(),
                                               LIT("a text interned before its static set was registered"), &again));
    EXPECT(declared.w == EARLY_EARLY && again.w == EARLY_EARLY);
    EXPECT_STATUS(DT_OK, dt_atom_release(&declared));
    EXPECT_STATUS(DT_OK, dt_atom_release(&again));
}

static void the_generated_set_registers_before_the_first_intern(void) {
    EXPECT_STATUS(DT_OK, test_static_atoms_register());
    EXPECT(TEST_STATIC_ATOMS_COUNT == 5);
    /* Registering the same header again is allowed. */
    EXPECT_STATUS(DT_OK, test_static_atoms_register());
}

static void every_table_gives_the_header_words(void) {
    dt_atom global, local, path, length;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(), LIT("content-type"), &global));
    EXPECT(global.w == TEST_CONTENT_TYPE);
    dt_table *t = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("content-type"), &local));
    EXPECT(local.w == TEST_CONTENT_TYPE && dt_atom_equal(&local, &global));
    EXPECT(dt_table_len(t) == 0); /* a static atom is filed in no local table */
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT(":path"), &path));
    EXPECT(path.w == TEST_PATH); /* up to 7 bytes: the inline word, in every table */
    dt_str s;
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(LIT("content-length"), &s));
    EXPECT_STATUS(DT_OK, dt_table_intern_str(dt_table_global(), &s, &length));
    EXPECT(length.w == TEST_CONTENT_LENGTH);
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&length, &data, &len));
    EXPECT(bytes_equal(data, len, "content-length"));
    EXPECT(dt_atom_hash(&global) == dt_atom_hash(&local));
    dt_atom all[] = {global, local, path, length};
    for (size_t i = 0; i < 4; i++) EXPECT_STATUS(DT_OK, dt_atom_release(&all[i]));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT_STATUS(DT_OK, dt_table_free(t));
}

static void switch_on_the_atom_word(void) {
    EXPECT(strcmp(classify(LIT("content-type")), "content-type") == 0);
    EXPECT(strcmp(classify(LIT("content-length")), "content-length") == 0);
    EXPECT(strcmp(classify(LIT("accept")), "accept") == 0);
    EXPECT(strcmp(classify(LIT(":path")), "path") == 0);
    EXPECT(strcmp(classify(LIT("a header name long enough to need several words of hashing")), "long") == 0);
    EXPECT(strcmp(classify(LIT("content-typf")), "other") == 0);
    EXPECT(strcmp(classify(LIT("x-a-header-in-no-static-set")), "other") == 0);
}

static void static_atoms_are_found_by_name_and_by_text(void) {
    dt_atom by_name, by_text, missing = {0};
    EXPECT_STATUS(DT_OK, dt_static_set_lookup_name(LIT("test"), LIT("CONTENT_TYPE"), &by_name));
    EXPECT(by_name.w == TEST_CONTENT_TYPE);
    EXPECT_STATUS(DT_OK, dt_static_set_lookup_bytes(LIT("test"), LIT("content-type"), &by_text));
    EXPECT(dt_atom_equal(&by_name, &by_text));
    EXPECT_STATUS(DT_OK, dt_static_set_lookup_name(LIT("test"), LIT("PATH"), &by_name));
    EXPECT(by_name.w == TEST_PATH);
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_name(LIT("test"), LIT("HOST"), &missing));
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_name(LIT("no-such-set"), LIT("CONTENT_TYPE"), &missing));
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_name(LIT("early"), LIT("CONTENT_TYPE"), &missing));
    /* By text: never interns. */
    EXPECT_STATUS(DT_ERR_NOT_FOUND,
                  dt_static_set_lookup_bytes(LIT("test"), LIT("x-looked-up-statically-never-interned"), &missing));
    EXPECT_STATUS(DT_ERR_NOT_FOUND,
                  dt_table_lookup_bytes(dt_table_global(), LIT("x-looked-up-statically-never-interned"), &missing));
    EXPECT(missing.w == 0); /* out-parameters are untouched on errors */
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_lookup_name(NULL, 4, LIT("CONTENT_TYPE"), &missing));
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_lookup_name(LIT("test"), NULL, 1, &missing));
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_lookup_name(LIT("test"), LIT("CONTENT_TYPE"), NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_lookup_bytes(LIT("test"), NULL, 3, &missing));
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_lookup_bytes(LIT("test"), LIT("accept"), NULL));
    EXPECT_STATUS(DT_ERR_UTF8, dt_static_set_lookup_name(LIT("test"), LIT("\xff"), &missing));
    EXPECT_STATUS(DT_OK, dt_atom_release(&by_name));
    EXPECT_STATUS(DT_OK, dt_atom_release(&by_text));
}

static void bad_sets_are_refused_and_register_nothing(void) {
    const dt_static_entry *good = test_static_atoms;
    /* NULL pointers. */
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_register(NULL, 3, good, 1));
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_register(LIT("bad"), NULL, 1));
    dt_static_entry null_text = good[0];
    null_text.text = NULL;
    EXPECT_STATUS(DT_ERR_NULL, dt_static_set_register(LIT("bad"), &null_text, 1));
    /* A word from another version of the library (or a corrupted header). */
    dt_static_entry wrong[2] = {good[1], good[4]};
    wrong[1].word ^= 8;
    EXPECT_STATUS(DT_ERR_WORD_MISMATCH, dt_static_set_register(LIT("bad"), wrong, 2));
    /* A text twice, a name twice. */
    dt_static_entry same_text[2] = {good[0], good[0]};
    same_text[1].name = (const uint8_t *)"OTHER_NAME";
    same_text[1].name_len = 10;
    EXPECT_STATUS(DT_ERR_DUPLICATE, dt_static_set_register(LIT("bad"), same_text, 2));
    dt_static_entry same_name[2] = {good[0], good[1]};
    same_name[1].name = good[0].name;
    same_name[1].name_len = good[0].name_len;
    EXPECT_STATUS(DT_ERR_DUPLICATE, dt_static_set_register(LIT("bad"), same_name, 2));
    /* Names are UTF-8. */
    dt_static_entry bad_name = good[0];
    bad_name.name = (const uint8_t *)"\xff";
    bad_name.name_len = 1;
    EXPECT_STATUS(DT_ERR_UTF8, dt_static_set_register(LIT("bad"), &bad_name, 1));
    EXPECT_STATUS(DT_ERR_UTF8, dt_static_set_register(LIT("\xfe"), good, 1));
    /* None of them registered anything. */
    dt_atom missing = {0};
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_name(LIT("bad"), LIT("CONTENT_TYPE"), &missing));
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_name(LIT("bad"), LIT("CONTENT_LENGTH"), &missing));
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_static_set_lookup_bytes(LIT("bad"), LIT("content-length"), &missing));
    /* An empty set is a set. */
    EXPECT_STATUS(DT_OK, dt_static_set_register(LIT("empty"), NULL, 0));
}

int main(void) {
    RUN(a_text_interned_before_its_set_is_reported);
    RUN(the_generated_set_registers_before_the_first_intern);
    RUN(every_table_gives_the_header_words);
    RUN(switch_on_the_atom_word);
    RUN(static_atoms_are_found_by_name_and_by_text);
    RUN(bad_sets_are_refused_and_register_nothing);
    FINISH();
}
