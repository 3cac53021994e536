/*
 * core/idmap.h: a hash map from (table, id) to a 64-bit value.
 *
 * Strings and stacks in a trace are referred to by ids that are only
 * unique within a table (a v2 generation, or the whole v1 trace); the
 * map keys on both. Open addressing, xxhash of the key, grows by
 * doubling. Not thread-safe for writes; concurrent lookups on a map that
 * is no longer written are fine.
 */
#ifndef GTR_CORE_IDMAP_H
#define GTR_CORE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gtr_idmap gtr_idmap;

gtr_idmap *gtr_idmap_create(void);
void gtr_idmap_free(gtr_idmap *m);

/*
 * Inserts or replaces. Returns 0, 1 when the key was already present
 * (the value is replaced), or GTR_E_NOMEM.
 */
int gtr_idmap_put(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t value);

/* Returns 1 and fills *value when found, 0 otherwise. */
int gtr_idmap_get(const gtr_idmap *m, uint64_t table, uint64_t id, uint64_t *value);

/* Removes a key; returns 1 if it was there, 0 otherwise. */
int gtr_idmap_del(gtr_idmap *m, uint64_t table, uint64_t id);

size_t gtr_idmap_count(const gtr_idmap *m);

/* Bytes the map holds, for memory accounting. */
size_t gtr_idmap_bytes(const gtr_idmap *m);

#endif
