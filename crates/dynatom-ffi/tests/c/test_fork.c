/* fork() in a threaded program: threads make and free objects and intern into the global
 * table while the main thread forks; each child must be able to exit, and to make, free
 * and intern before it does, however the fork fell (a lock held by a parent thread at the
 * fork would otherwise stay locked in the child for good). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define WORKERS 3
#define CHILDREN 12
#define CHILD_SECONDS 60

static atomic_int stop;

static void *churn(void *arg) {
    (void)arg;
    char text[64];
    for (unsigned long i = 0; !atomic_load(&stop); i++) {
        dt_builder *b = NULL;
        if (dt_builder_new(16, &b) == DT_OK) {
            (void)dt_builder_free(b);
        }
        dt_pieces *p = NULL;
        if (dt_pieces_new(&p) == DT_OK) {
            (void)dt_pieces_free(p);
        }
        int len = snprintf(text, sizeof text, "a text interned while the process forks %lu", i % 4096);
        dt_atom a;
        if (dt_table_intern_bytes(dt_table_global(), (const uint8_t *)text, (size_t)len, &a) == DT_OK) {
            (void)dt_atom_release(&a);
        }
    }
    return NULL;
}

/* What a child does before exit(0): nothing, or use the library. */
static void child_uses_the_library(void) {
    dt_builder *b = NULL;
    dt_atom a;
    if (dt_builder_new(16, &b) != DT_OK || dt_builder_free(b) != DT_OK ||
        dt_table_intern_bytes(dt_table_global(), LIT("interned in a forked child"), &a) != DT_OK ||
        dt_atom_release(&a) != DT_OK) {
        exit(3);
    }
}

/* Forks CHILDREN children while the workers churn; counts those that did not exit 0 in
 * time (a hung child is killed). */
static int children_that_failed(int use_library) {
    atomic_store(&stop, 0);
    pthread_t workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        EXPECT(pthread_create(&workers[i], NULL, churn, NULL) == 0);
    }
    int failed = 0;
    for (int c = 0; c < CHILDREN; c++) {
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            if (use_library) {
                child_uses_the_library();
            }
            exit(0);
        }
        EXPECT(pid > 0);
        int status = 0;
        int waited_ms = 0;
        pid_t done = 0;
        while ((done = waitpid(pid, &status, WNOHANG)) == 0 && waited_ms < CHILD_SECONDS * 1000) {
            struct timespec tick = {0, 10000000};
            nanosleep(&tick, NULL);
            waited_ms += 10;
        }
        if (done == 0) {
            fprintf(stderr, "child %d hung: killed\n", c);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            failed++;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %d: %s %d\n", c, WIFEXITED(status) ? "exit status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            failed++;
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(workers[i], NULL);
    }
    return failed;
}

static void a_forked_child_that_touches_nothing_exits(void) {
    EXPECT(children_that_failed(0) == 0);
}

static void a_forked_child_makes_frees_and_interns(void) {
    EXPECT(children_that_failed(1) == 0);
}

int main(void) {
    RUN(a_forked_child_that_touches_nothing_exits);
    RUN(a_forked_child_makes_frees_and_interns);
    FINISH();
}
