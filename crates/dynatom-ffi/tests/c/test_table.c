/* dt_table_*: independent tables, the global one, memory reports, and error paths. */
#if !defined(DYNATOM_TEST_HOOKS)
#error "uses the test hooks: scripts/c-tests builds it with -DDYNATOM_TEST_HOOKS against the test-hooks library"
#endif
#include <pthread.h>

#include "harness.h"

static void independent_tables_intern_and_look_up(void) {
    dt_table *t = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    EXPECT(t != NULL && t != dt_table_global() && dt_table_len(t) == 0);
    dt_atom a, b, found;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("a name interned in an independent table"), &a));
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("a name interned in an independent table"), &b));
    EXPECT(dt_atom_equal(&a, &b) && dt_table_len(t) == 1);
    EXPECT_STATUS(DT_OK, dt_table_lookup_bytes(t, LIT("a name interned in an independent table"), &found));
    EXPECT(dt_atom_equal(&a, &found));
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_table_lookup_bytes(t, LIT("never interned in this table at all"), &found));
    EXPECT_STATUS(DT_OK, dt_table_contains_bytes(t, LIT("a name interned in an independent table")));
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_table_contains_bytes(t, LIT("never interned in this table at all")));
    EXPECT_STATUS(DT_OK, dt_table_contains_bytes(t, LIT("seven!!"))); /* up to 7 bytes: always */
    /* The global table's atom of the same bytes is a different atom. */
    dt_atom global;
    EXPECT_STATUS(DT_OK,
                  dt_table_intern_bytes(dt_table_global(), LIT("a name interned in an independent table"), &global));
    EXPECT(!dt_atom_equal(&a, &global));
    dt_atom via_api;
    EXPECT_STATUS(DT_OK,
                  dt_table_lookup_bytes(dt_table_global(), LIT("a name interned in an independent table"), &via_api));
    EXPECT(dt_atom_equal(&global, &via_api));
    EXPECT(dt_table_len(dt_table_global()) >= 1);
    /* Up to 7 bytes, an atom is its word: equal in every table, filed in none. */
    dt_atom short_here, short_global;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("seven!!"), &short_here));
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(dt_table_global(), LIT("seven!!"), &short_global));
    EXPECT(dt_atom_equal(&short_here, &short_global) && dt_table_len(t) == 1);
    EXPECT_STATUS(DT_OK, dt_atom_release(&short_here));
    EXPECT_STATUS(DT_OK, dt_atom_release(&short_global));
    dt_atom all[] = {a, b, found, global, via_api};
    for (size_t i = 0; i < 5; i++) EXPECT_STATUS(DT_OK, dt_atom_release(&all[i]));
    EXPECT(dt_table_len(t) == 0); /* released: unused, kept until a sweep, not counted */
    EXPECT_STATUS(DT_ERR_NOT_FOUND, dt_table_contains_bytes(t, LIT("a name interned in an independent table")));
    EXPECT_STATUS(DT_OK, dt_table_free(t));
}

static void intern_str_adopts_in_the_global_and_independent_tables(void) {
    dt_str g;
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(LIT("test_table.c: a block the global table adopts"), &g));
    dt_atom ga;
    EXPECT_STATUS(DT_OK, dt_table_intern_str(dt_table_global(), &g, &ga));
    const uint8_t *sd = NULL, *ad = NULL;
    size_t sl = 0, al = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&g, &sd, &sl));
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&ga, &ad, &al));
    EXPECT(sd == ad && sl == al);
    EXPECT_STATUS(DT_OK, dt_atom_release(&ga));
    EXPECT_STATUS(DT_OK, dt_str_release(&g));

    dt_table *t = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    dt_str s;
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(LIT("a string that an independent table adopts"), &s));
    dt_atom a;
    EXPECT_STATUS(DT_OK, dt_table_intern_str(t, &s, &a));
    EXPECT_STATUS(DT_OK, dt_str_bytes(&s, &sd, &sl));
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&a, &ad, &al));
    EXPECT(sd == ad && sl == al);
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_str(t, NULL, &a));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_str(t, &s, NULL));
    EXPECT_STATUS(DT_OK, dt_str_release(&s));
    EXPECT_STATUS(DT_ERR_RELEASED, dt_table_intern_str(t, &s, &a));
    /* Atoms outlive their table. */
    EXPECT_STATUS(DT_OK, dt_table_free(t));
    EXPECT_STATUS(DT_OK, dt_atom_bytes(&a, &ad, &al));
    EXPECT(bytes_equal(ad, al, "a string that an independent table adopts"));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
}

static void memory_reports_count_what_the_table_holds(void) {
    dt_table *t = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    dt_atom a, b;
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("first atom of the report test"), &a));
    EXPECT_STATUS(DT_OK, dt_table_intern_bytes(t, LIT("second atom of the report test"), &b));
    dt_memory_report r;
    memset(&r, 0xab, sizeof r);
    EXPECT_STATUS(DT_OK, dt_table_memory_report(t, &r));
    EXPECT(r.atoms == 2 && r.inserts == 2 && r.removals == 0);
    EXPECT(r.char_bytes >= 29 + 30 && r.header_bytes > 0 && r.table_bytes > 0);
    EXPECT(r.slop_bytes >= -1 && r.locked_lookups >= 2 && r.locked_hits + r.locked_misses == r.locked_lookups && r.unused_bytes <= r.unused_bytes_limit && r.unused_bytes_limit >= 4 * 1024 * 1024);

    dt_str json;
    EXPECT_STATUS(DT_OK, dt_table_memory_report_json(t, &json));
    const uint8_t *data = NULL;
    size_t len = 0;
    EXPECT_STATUS(DT_OK, dt_str_bytes(&json, &data, &len));
    char text[1024] = {0};
    EXPECT(len < sizeof text);
    memcpy(text, data, len < sizeof text ? len : sizeof text - 1);
    EXPECT(text[0] == '{' && text[len - 1] == '}');
    EXPECT(strstr(text, "\"atoms\":2,") != NULL && strstr(text, "\"inserts\":2,") != NULL);
    EXPECT_STATUS(DT_OK, dt_str_release(&json));

    EXPECT_STATUS(DT_OK, dt_table_memory_report(dt_table_global(), &r));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_memory_report(t, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_memory_report(NULL, &r));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_memory_report_json(t, NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_memory_report_json(NULL, &json));
    EXPECT_STATUS(DT_OK, dt_atom_release(&a));
    EXPECT_STATUS(DT_OK, dt_atom_release(&b));
    EXPECT_STATUS(DT_OK, dt_table_free(t));
}

static void bad_tables_and_arguments(void) {
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_free(dt_table_global()));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_free(NULL));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_new(NULL));
    dt_atom a = {0};
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_bytes(NULL, LIT("x"), &a));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_lookup_bytes(NULL, LIT("x"), &a));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_contains_bytes(NULL, LIT("x")));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_contains_bytes(dt_table_global(), NULL, 3));
    EXPECT(dt_table_len(NULL) == 0);
    /* Another kind of object where a table is expected. */
    dt_pieces *p = NULL;
    EXPECT_STATUS(DT_OK, dt_pieces_new(&p));
    dt_table *wrong = (dt_table *)(void *)p;
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_intern_bytes(wrong, LIT("x"), &a));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_contains_bytes(wrong, LIT("x")));
    EXPECT_STATUS(DT_ERR_INVALID_HANDLE, dt_table_free(wrong));
    EXPECT(dt_table_len(wrong) == 0);
    EXPECT_STATUS(DT_OK, dt_pieces_free(p));
    dt_table *t = NULL;
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_bytes(t, NULL, 1, &a));
    EXPECT_STATUS(DT_ERR_NULL, dt_table_intern_bytes(t, LIT("x"), NULL));
    EXPECT_STATUS(DT_ERR_TOO_LONG, dt_table_intern_bytes(t, (const uint8_t *)"x", (size_t)DT_MAX_LEN + 1, &a));
    EXPECT(a.w == 0 && dt_table_len(t) == 0);
    EXPECT_STATUS(DT_OK, dt_table_free(t));
}

/* A table's shards, and a thread's first record in the global table, are allocations
 * like any other: refused, they are DT_ERR_ALLOC, and the same call succeeds later. */
static void allocation_failure_in_a_new_table_is_an_error(void) {
    dt_table *t = NULL;
    dt_test_fail_allocations(1024);
    EXPECT_STATUS(DT_ERR_ALLOC, dt_table_new(&t));
    dt_test_fail_allocations(0);
    EXPECT(t == NULL);
    EXPECT_STATUS(DT_OK, dt_table_new(&t));
    EXPECT_STATUS(DT_OK, dt_table_free(t));
}

static void *intern_with_small_allocations_failing(void *result) {
    dt_atom a = {0};
    dt_test_fail_allocations(8);
    dt_status refused = dt_table_intern_bytes(dt_table_global(), LIT("a first intern on a thread of its own"), &a);
    dt_test_fail_allocations(0);
    dt_status retried = dt_table_intern_bytes(dt_table_global(), LIT("a first intern on a thread of its own"), &a);
    ((dt_status *)result)[0] = refused;
    ((dt_status *)result)[1] = retried;
    ((dt_status *)result)[2] = dt_atom_release(&a);
    return NULL;
}

static void allocation_failure_in_a_threads_first_intern_is_an_error(void) {
    dt_status results[3] = {DT_OK, DT_ERR_PANIC, DT_ERR_PANIC};
    pthread_t thread;
    EXPECT(pthread_create(&thread, NULL, intern_with_small_allocations_failing, results) == 0);
    EXPECT(pthread_join(thread, NULL) == 0);
    EXPECT_STATUS(DT_ERR_ALLOC, results[0]);
    EXPECT_STATUS(DT_OK, results[1]);
    EXPECT_STATUS(DT_OK, results[2]);
}

int main(void) {
    RUN(independent_tables_intern_and_look_up);
    RUN(intern_str_adopts_in_the_global_and_independent_tables);
    RUN(memory_reports_count_what_the_table_holds);
    RUN(bad_tables_and_arguments);
    RUN(allocation_failure_in_a_new_table_is_an_error);
    RUN(allocation_failure_in_a_threads_first_intern_is_an_error);
    FINISH();
}
