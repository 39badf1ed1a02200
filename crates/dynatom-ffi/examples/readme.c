#include <stdio.h>
#include <string.h>
#include "dynatom.h"

#define CHECK(call) do { dt_status s_ = (call); \
    if (s_ != DT_OK) { fprintf(stderr, "%s: %s\n", #call, dt_status_message(s_)); return 1; } } while (0)

int main(void) {
    /* A request read from a socket: copied once, not hashed, not interned. */
    const char *request = "GET /index.html HTTP/1.1\r\nHost: example.org\r\n\r\n";
    dt_str req, path;
    CHECK(dt_str_from_bytes((const uint8_t *)request, strlen(request), &req));
    CHECK(dt_str_slice(&req, 4, 15, &path));            /* "/index.html": O(1), no copy */

    /* Used as a key: now it becomes an atom; equal bytes give the same atom. */
    dt_table *atoms = dt_table_global();                /* the process-wide table */
    dt_atom key, again;
    CHECK(dt_table_intern_str(atoms, &path, &key));      /* adopts path's bytes: no copy */
    CHECK(dt_table_intern_bytes(atoms, (const uint8_t *)"/index.html", 11, &again));
    printf("same atom: %s\n", dt_atom_equal(&key, &again) ? "yes" : "no");

    /* A response from pieces, written with one writev and never joined. */
    dt_pieces *out;
    CHECK(dt_pieces_new(&out));
    CHECK(dt_pieces_append_bytes(out, (const uint8_t *)"served ", 7));
    CHECK(dt_pieces_append_atom(out, &key));
    CHECK(dt_pieces_append_bytes(out, (const uint8_t *)"\n", 1));
    fflush(stdout);                                      /* writev bypasses stdio */
    CHECK(dt_pieces_writev(out, 1, NULL));

    CHECK(dt_pieces_free(out));
    CHECK(dt_atom_release(&again));
    CHECK(dt_atom_release(&key));
    CHECK(dt_str_release(&path));
    CHECK(dt_str_release(&req));
    return dt_str_release(&req) == DT_ERR_RELEASED ? 0 : 1;  /* a second release is caught */
}
