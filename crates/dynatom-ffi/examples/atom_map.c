/* An atom-keyed hash map for C: the recipe, in one file to copy and adapt.
 *
 * Two atoms are the same atom exactly when their words are equal (`a.w == b.w`, which is
 * what dt_atom_equal compares), and dt_atom_hash(&a) is the hash cached with the atom:
 * reading it touches no bytes, and equal words always give equal hashes. (The hash is
 * keyed by a random per-process seed: do not store it or compare it across processes.)
 * So a map keyed by atoms never hashes or compares text: it files each key under
 * dt_atom_hash and compares words.
 *
 * The map holds one reference per key (dt_atom_clone on insert, dt_atom_release on remove
 * and free). That reference is what makes the word a sound key: while someone holds the
 * atom it stays in its table and its word names this text; once its last reference is
 * released the table may free it, and a later atom of other text may get the same word.
 *
 * Keys are usually atoms of one table (the global one here). An atom of another table is
 * another key, even for the same text, as dt_atom_equal says (atoms of up to 7 bytes
 * excepted: they are equal in every table).
 *
 * The table is open addressing with linear probing; removal shifts the entries after the
 * removed one back (no tombstones); it doubles when three quarters full. Values are
 * `const char *` here: change `atom_map_value` to what you store.
 *
 * scripts/c-tests builds and runs this program (against the static library, under
 * valgrind) and checks its output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dynatom.h"

typedef const char *atom_map_value;

typedef struct atom_map_slot {
    dt_atom key;          /* key.w == 0: an empty slot (no atom has the all-zero word) */
    atom_map_value value;
} atom_map_slot;

typedef struct atom_map {
    atom_map_slot *slots; /* capacity slots, a power of two; NULL until the first insert */
    size_t capacity;
    size_t len;
} atom_map;

#define ATOM_MAP_MIN_CAPACITY 8

/* The slot holding `key`, or the empty slot where it would go. The map must have slots. */
static size_t atom_map_find(const atom_map *m, const dt_atom *key) {
    size_t mask = m->capacity - 1;
    size_t i = (size_t)dt_atom_hash(key) & mask;
    while (m->slots[i].key.w != 0 && m->slots[i].key.w != key->w)
        i = (i + 1) & mask;
    return i;
}

/* Moves every entry into a table of `capacity` slots. The references move with the words:
 * nothing is cloned or released. */
static dt_status atom_map_resize(atom_map *m, size_t capacity) {
    atom_map old = *m;
    m->slots = calloc(capacity, sizeof *m->slots);
    if (m->slots == NULL) {
        m->slots = old.slots;
        return DT_ERR_ALLOC;
    }
    m->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.slots[i].key.w != 0)
            m->slots[atom_map_find(m, &old.slots[i].key)] = old.slots[i];
    free(old.slots);
    return DT_OK;
}

/* Maps `*key` to `value`. A new key is cloned (the map keeps that reference; the caller
 * keeps its own); an existing key only has its value replaced. */
static dt_status atom_map_insert(atom_map *m, const dt_atom *key, atom_map_value value) {
    if (key == NULL)
        return DT_ERR_NULL;
    if ((m->len + 1) * 4 > m->capacity * 3) { /* keep the load at most 3/4 */
        dt_status s = atom_map_resize(m, m->capacity ? m->capacity * 2 : ATOM_MAP_MIN_CAPACITY);
        if (s != DT_OK)
            return s;
    }
    atom_map_slot *slot = &m->slots[atom_map_find(m, key)];
    if (slot->key.w == 0) {
        dt_status s = dt_atom_clone(key, &slot->key); /* also rejects released/invalid atoms */
        if (s != DT_OK) {
            slot->key.w = 0;
            return s;
        }
        m->len++;
    }
    slot->value = value;
    return DT_OK;
}

/* The value of `*key`, or NULL when the map has no such key. */
static const atom_map_value *atom_map_get(const atom_map *m, const dt_atom *key) {
    if (key == NULL || m->len == 0)
        return NULL;
    const atom_map_slot *slot = &m->slots[atom_map_find(m, key)];
    return slot->key.w != 0 ? &slot->value : NULL;
}

/* Removes `*key` and releases the map's reference to it; DT_ERR_NOT_FOUND if absent. */
static dt_status atom_map_remove(atom_map *m, const dt_atom *key) {
    if (key == NULL)
        return DT_ERR_NULL;
    if (m->len == 0)
        return DT_ERR_NOT_FOUND;
    size_t mask = m->capacity - 1;
    size_t hole = atom_map_find(m, key);
    if (m->slots[hole].key.w == 0)
        return DT_ERR_NOT_FOUND;
    dt_status s = dt_atom_release(&m->slots[hole].key);
    if (s != DT_OK)
        return s;
    m->len--;
    /* Shift back each following entry that may not sit past the hole: one whose home
     * slot (where its hash points) is not cyclically within (hole, i]. */
    for (size_t i = (hole + 1) & mask; m->slots[i].key.w != 0; i = (i + 1) & mask) {
        size_t home = (size_t)dt_atom_hash(&m->slots[i].key) & mask;
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            m->slots[hole] = m->slots[i];
            hole = i;
        }
    }
    m->slots[hole].key.w = 0;
    return DT_OK;
}

/* Releases every key and frees the slots; the map is empty and reusable afterwards. */
static void atom_map_free(atom_map *m) {
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slots[i].key.w != 0)
            dt_atom_release(&m->slots[i].key);
    free(m->slots);
    *m = (atom_map){0};
}

#define CHECK(call) do { dt_status s_ = (call); \
    if (s_ != DT_OK) { fprintf(stderr, "%s: %s\n", #call, dt_status_message(s_)); return 1; } } while (0)

static dt_status intern(const char *text, dt_atom *out) {
    return dt_table_intern_bytes(dt_table_global(), (const uint8_t *)text, strlen(text), out);
}

int main(void) {
    static const char *const headers[][2] = {
        {"Host", "the server's name"},          {"User-Agent", "the client"},
        {"Accept", "media types wanted"},       {"Accept-Encoding", "codings wanted"},
        {"Accept-Language", "languages wanted"}, {"Connection", "keep-alive or close"},
        {"Content-Type", "the body's media type"}, {"Content-Length", "the body's size"},
        {"Cache-Control", "caching rules"},     {"Cookie", "the client's cookies"},
        {"Authorization", "credentials"},       {"If-None-Match", "a conditional on ETags"},
    };
    const size_t n = sizeof headers / sizeof headers[0];

    /* Build: the map clones each key, so our own reference can go at once. */
    atom_map known = {0};
    for (size_t i = 0; i < n; i++) {
        dt_atom name;
        CHECK(intern(headers[i][0], &name));
        CHECK(atom_map_insert(&known, &name, headers[i][1]));
        CHECK(dt_atom_release(&name));
    }
    printf("%zu headers in %zu slots\n", known.len, known.capacity); /* grown from 8 */

    /* Look up: a header name read from a request, interned afresh, is the same atom.
     * (dt_table_lookup_bytes instead would not add names that nobody registered.) */
    const char *request = "Host: example.org\r\nContent-Length: 42\r\nX-Custom: 1\r\n";
    for (const char *line = request; *line != '\0'; line = strstr(line, "\r\n") + 2) {
        size_t len = (size_t)(strchr(line, ':') - line);
        dt_atom name;
        CHECK(dt_table_intern_bytes(dt_table_global(), (const uint8_t *)line, len, &name));
        const atom_map_value *what = atom_map_get(&known, &name);
        printf("%.*s: %s\n", (int)len, line, what ? *what : "(unknown)");
        CHECK(dt_atom_release(&name));
    }

    /* Remove: the map gives its reference back. */
    dt_atom host;
    CHECK(intern("Host", &host));
    CHECK(atom_map_remove(&known, &host));
    dt_status again = atom_map_remove(&known, &host);
    printf("after removing Host: %zu headers, Host %s, removing it again: %s\n", known.len,
           atom_map_get(&known, &host) ? "found" : "gone", again == DT_ERR_NOT_FOUND ? "not found" : "?");
    CHECK(dt_atom_release(&host));

    /* Every entry is still found after the removal shifted its neighbours. */
    size_t found = 0;
    for (size_t i = 1; i < n; i++) {
        dt_atom name;
        CHECK(intern(headers[i][0], &name));
        const atom_map_value *what = atom_map_get(&known, &name);
        found += what != NULL && *what == headers[i][1];
        CHECK(dt_atom_release(&name));
    }
    printf("the other %zu found: %s\n", n - 1, found == n - 1 ? "yes" : "no");

    atom_map_free(&known); /* releases the map's references */
    return found == n - 1 ? 0 : 1;
}
