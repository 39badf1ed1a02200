/* A generated header whose set is refused before main stops the program: a constructor
 * with a priority (so it runs before the header's) interns one of the set's texts first
 * and holds the atom (an atom made and released would be no obstacle: the registration
 * evicts it), and the header's constructor, which cannot return the refusal, must say why on stderr
 * and abort rather than let main run on constants that match nothing. scripts/c-tests
 * expects SIGABRT and the message; main is never reached. */
#include <stdio.h>

#include "test_static_refused.h"

static dt_atom held;

__attribute__((constructor(101))) static void intern_a_text_of_the_set_first(void) {
    (void)dt_table_intern_bytes(dt_table_global(), (const uint8_t *)"x-interned-before-its-set", 25, &held);
}

int main(void) {
    printf("main ran: the refused set went unnoticed\n");
    return 0;
}
