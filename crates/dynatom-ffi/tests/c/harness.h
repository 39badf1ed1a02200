/* A tiny test harness for the C tests: RUN(case) runs a void function, EXPECT and
 * EXPECT_STATUS record failures without stopping it, FINISH() prints the closing line
 * "N passed, M failed" that scripts/c-tests adds up, and returns the exit status. */
#ifndef DYNATOM_TEST_HARNESS_H
#define DYNATOM_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "dynatom.h"

static int harness_passed, harness_failed, harness_case_failed;
static const char *harness_case = "";

#define EXPECT(cond)                                                                        \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: in %s: EXPECT(%s) failed\n", __FILE__, __LINE__,        \
                    harness_case, #cond);                                                   \
            harness_case_failed = 1;                                                        \
        }                                                                                   \
    } while (0)

#define EXPECT_STATUS(expected, call)                                                       \
    do {                                                                                    \
        dt_status got_ = (call);                                                            \
        if (got_ != (expected)) {                                                           \
            fprintf(stderr, "%s:%d: in %s: %s returned %d (%s), expected %s\n", __FILE__,   \
                    __LINE__, harness_case, #call, (int)got_, dt_status_message(got_),      \
                    #expected);                                                             \
            harness_case_failed = 1;                                                        \
        }                                                                                   \
    } while (0)

/* The bytes of a string literal, without its NUL. */
#define LIT(s) (const uint8_t *)(s), (sizeof(s) - 1)

#define RUN(fn)                                                                             \
    do {                                                                                    \
        harness_case = #fn;                                                                 \
        harness_case_failed = 0;                                                            \
        fn();                                                                               \
        if (harness_case_failed) {                                                          \
            harness_failed++;                                                               \
            printf("FAIL %s\n", #fn);                                                       \
        } else {                                                                            \
            harness_passed++;                                                               \
            printf("ok   %s\n", #fn);                                                       \
        }                                                                                   \
    } while (0)

#define FINISH()                                                                            \
    do {                                                                                    \
        printf("%d passed, %d failed\n", harness_passed, harness_failed);                   \
        return harness_failed ? 1 : 0;                                                      \
    } while (0)

/* Equal bytes: (data, len) against a literal. */
static inline int bytes_equal(const uint8_t *data, size_t len, const char *text) {
    return len == strlen(text) && (len == 0 || memcmp(data, text, len) == 0);
}

#endif
