/* Unloading: a program dlopen()s libdynatom_ffi (path in argv[1]), interns through the global
 * table (which registers the library's exit-time sweep), gives every atom back,
 * dlclose()s the library, then exits, under valgrind.
 *
 * The library is linked -z nodelete (build.rs), so dlclose leaves it mapped: its statics
 * (the global table, the freed objects' memory) stay reachable and the exit-time sweep,
 * which the C library files under the library's own handle (atexit in a shared object is
 * __cxa_atexit with __dso_handle), still has its code when it runs. Were the library
 * unmapped, valgrind would report the global table as definitely lost.
 *
 * Two cases: interning on a thread that has ended (nothing else would keep the library
 * loaded: glibc keeps a library mapped only while a live thread has its thread-local
 * destructors pending), and interning on the main thread, still running.
 *
 * Not linked against the library (so that only dlopen holds it); built and run by
 * scripts/c-tests. Calls go through dlsym'd pointers, so statuses are compared, not
 * printed (dt_status_message is not linked). */
#include <dlfcn.h>
#include <pthread.h>

#include "harness.h"

typedef dt_status (*intern_fn)(dt_table *, const uint8_t *, size_t, dt_atom *);
typedef dt_status (*release_fn)(dt_atom *);
typedef size_t (*len_fn)(const dt_table *);
typedef dt_table *(*global_fn)(void);

static const char *library;

/* Interns 100 atoms through the library `lib` and gives them all back: what is left in the
 * global table is unused, for the exit-time sweep. */
static void *intern_and_release(void *lib) {
    intern_fn intern = (intern_fn)(size_t)dlsym(lib, "dt_table_intern_bytes");
    release_fn release = (release_fn)(size_t)dlsym(lib, "dt_atom_release");
    len_fn table_len = (len_fn)(size_t)dlsym(lib, "dt_table_len");
    global_fn global = (global_fn)(size_t)dlsym(lib, "dt_table_global");
    EXPECT(intern && release && table_len && global);
    if (!(intern && release && table_len && global)) return NULL;
    dt_atom atoms[100];
    char text[80];
    for (int i = 0; i < 100; i++) {
        int n = snprintf(text, sizeof text, "unload_dlclose.c: an atom filed in the global table %d", i);
        EXPECT(intern(global(), (const uint8_t *)text, (size_t)n, &atoms[i]) == DT_OK);
    }
    EXPECT(table_len(global()) >= 100);
    for (int i = 0; i < 100; i++) EXPECT(release(&atoms[i]) == DT_OK);
    return NULL;
}

static void *open_library(void) {
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    EXPECT(lib != NULL);
    if (lib == NULL) fprintf(stderr, "dlopen: %s\n", dlerror());
    return lib;
}

/* Whether the library is still mapped (RTLD_NOLOAD opens it only if it is). */
static int still_loaded(void) {
    void *again = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    if (again == NULL) return 0;
    dlclose(again);
    return 1;
}

static void interning_on_an_ended_thread_then_dlclose_keeps_the_library_mapped(void) {
    void *lib = open_library();
    if (lib == NULL) return;
    pthread_t thread;
    EXPECT(pthread_create(&thread, NULL, intern_and_release, lib) == 0);
    EXPECT(pthread_join(thread, NULL) == 0);
    EXPECT(dlclose(lib) == 0);
    EXPECT(still_loaded());
}

static void interning_on_the_main_thread_then_dlclose(void) {
    void *lib = open_library();
    if (lib == NULL) return;
    intern_and_release(lib);
    EXPECT(dlclose(lib) == 0);
    EXPECT(still_loaded());
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libdynatom_ffi.so\n", argv[0]);
        return 2;
    }
    library = argv[1];
    RUN(interning_on_an_ended_thread_then_dlclose_keeps_the_library_mapped);
    RUN(interning_on_the_main_thread_then_dlclose);
    FINISH();
}
