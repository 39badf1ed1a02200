/* The second translation unit of test_static_auto.c: including the generated header here
 * too registers the set a second time before main, which must be harmless. */
#include "test_static_auto.h"

dt_status auto_second_tu_classify(const uint8_t *data, size_t len, const char **kind);

dt_status auto_second_tu_classify(const uint8_t *data, size_t len, const char **kind) {
    dt_atom atom;
    dt_status status = dt_table_intern_bytes(dt_table_global(), data, len, &atom);
    if (status != DT_OK) return status;
    switch (atom.w) {
    case AUTO_USER_AGENT: *kind = "user-agent"; break;
    case AUTO_CONTENT_TYPE: *kind = "content-type"; break;
    default: *kind = "other"; break;
    }
    return dt_atom_release(&atom);
}
