/* The opaque objects (dt_table, dt_builder, dt_pieces, dt_interner) freed twice, used
 * after free, and reused: the header's "Freed objects" guarantee, both sides. A second
 * free is DT_ERR_RELEASED and, under valgrind, reads and frees nothing that went back to
 * the allocator; a freed object's memory is not reused before DT_FREE_QUARANTINE other
 * objects of its kind have been freed after it; once reused, the stale pointer names the
 * new object (the documented, undetected side). */
#include "harness.h"

static void a_table_freed_twice_is_released(void) {
    dt_table *t = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    dt_atom a;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("test_objects.c: an atom of a table freed twice"), &a));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
    EXPECT_STATUS(DT_OK, dt_table_free(t));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_table_free(t));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_table_intern_bytes(t, LIT("test_objects.c: used after free"), &a));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_table_lookup_bytes(t, LIT("test_objects.c: used after free"), &a));
    dt_memory_report report;
    EXPECT_STATUS(DT_ERR_RELEASED, dt_table_memory_report(t, &report));
    EXPECT(dt_table_len(t) == 0);
    EXPECT_STATUS(DT_ERR_RELEASED, dt_table_free(t));
}

static void a_builder_freed_twice_or_freed_after_finish_is_released(void) {
    dt_builder *b = NULL;
    EXPECT_STATUS(DT_OK, dt_builder_new(64, &b));
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, LIT("bytes in a builder freed twice")));
    EXPECT_STATUS(DT_OK, dt_builder_free(b));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_builder_free(b));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_builder_append_bytes(b, LIT("x")));
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_ERR_RELEASED, dt_builder_finish(b, &s));
    EXPECT(dt_builder_len(b) == 0 && s.w0 == 0);

    /* dt_builder_finish consumes the builder: freeing it after is a second free. */
    EXPECT_STATUS(DT_OK, dt_builder_new(64, &b));
    EXPECT_STATUS(DT_OK, dt_builder_append_bytes(b, LIT("a builder finished, then freed")));
    EXPECT_STATUS(DT_OK, dt_builder_finish(b, &s));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_builder_free(b));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_builder_finish(b, &s));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
}

static void a_piece_list_freed_twice_is_released(void) {
    dt_pieces *p = NULL;
    EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
    EXPECT_STATUS(DT_OK, dt_pieces_append_bytes(p, LIT("a piece of a list freed twice")));
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_pieces_free(p));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_pieces_append_bytes(p, LIT("x")));
    dt_str s = {0, 0};
    EXPECT_STATUS(DT_ERR_RELEASED, dt_pieces_to_str(p, &s));
    EXPECT(dt_pieces_len(p) == 0 && dt_pieces_count(p) == 0 && s.w0 == 0);
}

static void an_interner_freed_twice_is_released(void) {
    dt_interner *in = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&in));
    uint32_t sym = 0;
    EXPECT_STATUS(DT_OK, dt_interner_intern_bytes(in, LIT("a symbol of an interner freed twice"), &sym));
    EXPECT_STATUS(DT_OK, dt_interner_free(in));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_interner_free(in));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_interner_intern_bytes(in, LIT("x"), &sym));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_ERR_RELEASED, dt_interner_resolve(in, sym, &data, &len));
    EXPECT(dt_interner_len(in) == 0 && data == NULL);
}

static void a_freed_object_stays_released_while_its_kind_comes_and_goes(void) {
    dt_interner *freed = NULL;
    EXPECT_STATUS(DT_OK, dt_interner_new(&freed));
    EXPECT_STATUS(DT_OK, dt_interner_free(freed));
    for (int i = 0; i < DT_FREE_QUARANTINE; i++) {
        dt_interner *other = NULL;
        EXPECT_STATUS(DT_OK, dt_interner_new(&other));
        EXPECT(other != freed);
        EXPECT_STATUS(DT_OK, dt_interner_free(other));
        EXPECT_STATUS(DT_ERR_RELEASED, dt_interner_free(freed));
    }
}

/* NOT detected, as the header says: once a freed object's memory holds a new object of
 * the same kind, the stale pointer names that object. */
static void a_stale_pointer_names_the_object_that_reuses_its_memory(void) {
    dt_pieces *stale = NULL;
    EXPECT_STATUS(DT_OK, dt_pieces_new(&stale));
    EXPECT_STATUS(DT_OK, dt_pieces_free(stale));
    dt_pieces *reused = NULL;
    int made = 0;
    for (; made < 4 * DT_FREE_QUARANTINE; made++) {
        dt_pieces *p = NULL;
        EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
        if (p == stale) {
            reused = p;
            break;
        }
        EXPECT_STATUS(DT_OK, dt_pieces_free(p));
    }
    EXPECT(reused == stale && made >= DT_FREE_QUARANTINE);
    if (reused == NULL) return;
    EXPECT_STATUS(DT_OK, dt_pieces_append_bytes(reused, LIT("the new object's piece")));
    EXPECT(dt_pieces_count(stale) == 1); /* the stale pointer reads the new list */
    EXPECT_STATUS(DT_OK, dt_pieces_free(stale)); /* and frees it: the library cannot tell */
    EXPECT_STATUS(DT_ERR_RELEASED, dt_pieces_free(reused));
}

static void the_global_table_is_never_freed(void) {
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_free(dt_table_global()));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_free(dt_table_global()));
    dt_atom a;
    EXPECT_STATUS(DT_OK,
                  dt_table_intern_bytes(dt_table_global(), LIT("test_objects.c: the global table lives on"), &a));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
}

int main(void) {
    RUN(a_table_freed_twice_is_released);
    RUN(a_builder_freed_twice_or_freed_after_finish_is_released);
    RUN(a_piece_list_freed_twice_is_released);
    RUN(an_interner_freed_twice_is_released);
    RUN(a_freed_object_stays_released_while_its_kind_comes_and_goes);
    RUN(a_stale_pointer_names_the_object_that_reuses_its_memory);
    RUN(the_global_table_is_never_freed);
    FINISH();
}
