/* A generated header registers its set before main: this program includes
 * test_static_auto.h (written by dt-static-header from static_atoms_auto.txt, see
 * scripts/c-tests), in this file and in static_auto_second_tu.c, and never calls
 * auto_static_atoms_register() before it interns. A header that only offered the call
 * sent every text over 7 bytes (user-agent, content-type) to `default:` without a word,
 * while short ones (accept, an inline atom) still matched. */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <stdlib.h>

#include "harness.h"
#include "test_static_auto.h"

/* From static_auto_second_tu.c, which includes the header too. */
dt_status auto_second_tu_classify(const uint8_t *data, size_t len, const char **kind);

/* Interns text copied into a heap buffer, as a parser would hand it over, and names it by
 * switching on the word. */
static const char *classify(const char *text) {
    size_t len = strlen(text);
    uint8_t *buffer = malloc(len + 1);
    if (buffer == NULL) return "no memory";
    memcpy(buffer, text, len);
    dt_atom atom;
    dt_status status = dt_table_intern_bytes(dt_table_global(), buffer, len, &atom);
    free(buffer);
    if (status != DT_OK) return "error";
    const char *kind;
    switch (atom.w) {
    case AUTO_USER_AGENT: kind = "user-agent"; break;
    case AUTO_CONTENT_TYPE: kind = "content-type"; break;
    case AUTO_ACCEPT: kind = "accept"; break;
    default: kind = "other"; break;
    }
    dt_atom_release(&atom);
    return kind;
}

static void long_texts_match_their_constants_without_a_register_call(void) {
    EXPECT(strcmp(classify("user-agent"), "user-agent") == 0);
    EXPECT(strcmp(classify("content-type"), "content-type") == 0);
    EXPECT(strcmp(classify("accept"), "accept") == 0); /* inline: matched even unregistered */
    EXPECT(strcmp(classify("content-typf"), "other") == 0);
    EXPECT(strcmp(classify("x-not-in-the-auto-set"), "other") == 0);
}

static void another_translation_unit_sees_the_same_words(void) {
    const char *kind = NULL;
    EXPECT_STATUS(DT_OK, auto_second_tu_classify(LIT("user-agent"), &kind));
    EXPECT(kind != NULL && strcmp(kind, "user-agent") == 0);
    EXPECT_STATUS(DT_OK, auto_second_tu_classify(LIT("content-type"), &kind));
    EXPECT(kind != NULL && strcmp(kind, "content-type") == 0);
}

static void the_set_is_registered_and_the_explicit_call_still_works(void) {
    dt_atom by_name;
    EXPECT_STATUS(DT_OK, dt_static_set_lookup_name(LIT("auto"), LIT("USER_AGENT"), &by_name));
    EXPECT(by_name.w == AUTO_USER_AGENT);
    EXPECT_STATUS(DT_OK, dt_atom_release(&by_name));
    /* Calling it by hand, after the texts were interned, is still DT_OK. */
    EXPECT_STATUS(DT_OK, auto_static_atoms_register());
    EXPECT(strcmp(classify("user-agent"), "user-agent") == 0);
}

int main(void) {
    RUN(long_texts_match_their_constants_without_a_register_call);
    RUN(another_translation_unit_sees_the_same_words);
    RUN(the_set_is_registered_and_the_explicit_call_still_works);
    FINISH();
}
