/* The thread-safety the header promises: dt_str/dt_atom handles and dt_table from many
 * threads at once (interning, lookups, clones and releases of the same names), with
 * every reference given back by the end (valgrind checks nothing leaks). */
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"

enum { THREADS = 4, ROUNDS = 300, NAMES = 16 };

static dt_table *shared_table;
static dt_str shared_str; /* one handle read by every thread */
static int worker_failures;
static pthread_mutex_t failures_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
    int failed = 0, id = (int)(size_t)arg;
    char name[64];
    for (int round = 0; round < ROUNDS; round++) {
        int n = snprintf(name, sizeof name, "shared header name number %d, long enough", (round + id) % NAMES);
        dt_atom global, local, found;
        failed |= dt_table_intern_bytes(dt_table_global(), (const uint8_t *)name, (size_t)n, &global) != DT_OK;
        failed |= dt_table_intern_bytes(shared_table, (const uint8_t *)name, (size_t)n, &local) != DT_OK;
        failed |= dt_table_lookup_bytes(shared_table, (const uint8_t *)name, (size_t)n, &found) != DT_OK;
        failed |= !dt_atom_equal(&local, &found) || dt_atom_equal(&global, &local);
        dt_str copy, part;
        failed |= dt_str_clone(&shared_str, &copy) != DT_OK;
        failed |= dt_str_slice(&copy, 5, 20, &part) != DT_OK;
        failed |= dt_str_len(&part) != 15;
        dt_atom from_str;
        failed |= dt_table_intern_str(dt_table_global(), &part, &from_str) != DT_OK;
        failed |= dt_atom_release(&from_str) != DT_OK;
        failed |= dt_str_release(&part) != DT_OK || dt_str_release(&copy) != DT_OK;
        failed |= dt_atom_release(&found) != DT_OK || dt_atom_release(&local) != DT_OK;
        failed |= dt_atom_release(&global) != DT_OK;
    }
    pthread_mutex_lock(&failures_lock);
    worker_failures += failed;
    pthread_mutex_unlock(&failures_lock);
    return NULL;
}

static void handles_and_tables_from_many_threads(void) {
    EXPECT_STATUS(DT_OK, dt_table_new(&shared_table));
    EXPECT_STATUS(DT_OK, dt_str_from_bytes(LIT("a string that every thread clones, slices and interns"), &shared_str));
    pthread_t threads[THREADS];
    for (size_t i = 0; i < THREADS; i++) EXPECT(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
    for (size_t i = 0; i < THREADS; i++) EXPECT(pthread_join(threads[i], NULL) == 0);
    EXPECT(worker_failures == 0);
    EXPECT(dt_table_len(shared_table) == 0); /* every atom was released */
    EXPECT_STATUS(DT_OK, dt_str_release(&shared_str));
    EXPECT_STATUS(DT_OK, dt_table_free(shared_table));
}

int main(void) {
    RUN(handles_and_tables_from_many_threads);
    FINISH();
}
