/*
 * core/base/idmap.h: a hash map from (table, id) to a 64-bit value.
 *
 * Strings and stacks in a trace are referred to by ids that are only
 * unique within a table (a v2 generation, or the whole v1 trace); the
 * map keys on both. Open addressing, a mix of the two keys, grows by
 * doubling. Not thread-safe for writes; concurrent lookups on a map that
 * is no longer written are fine.
 */
#ifndef GTR_CORE_IDMAP_H
#define GTR_CORE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gtr_idmap gtr_idmap;

/*
 * A seed for a hash table keyed by what a trace gives (ids a hostile
 * trace could choose to share one probe run): drawn once per process,
 * made different at each call, so that no two tables share it either
 * (copying one into another in slot order would pile the keys up).
 */
uint64_t gtr_hash_seed(void);

/* MurmurHash3's 64-bit finalizer: a bijection, every input bit reaching
 * every output bit. */
static inline uint64_t gtr_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

gtr_idmap *gtr_idmap_create(void);
void gtr_idmap_free(gtr_idmap *m);

/* Empties the map, keeping its room for as many entries as it had: a map
 * refilled over and over (once per generation, say) grows once. */
void gtr_idmap_clear(gtr_idmap *m);

/*
 * Inserts or replaces. Returns 0, 1 when the key was already present
 * (the value is replaced), or GTR_E_NOMEM.
 */
int gtr_idmap_put(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t value);

/* Returns 1 and fills *value when found, 0 otherwise. */
int gtr_idmap_get(const gtr_idmap *m, uint64_t table, uint64_t id, uint64_t *value);

/*
 * gtr_idmap_get for a map one thread owns and asks for the same key in
 * runs (an analysis's goroutines: an event names its goroutine several
 * times, the next event often the same one): the map remembers where
 * it found the key, and the next get or put of that key goes there
 * without a probe. Writes the map, so no other thread may read it.
 */
int gtr_idmap_get_hot(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t *value);

/*
 * One probe for a get, then a put when the key is not there: returns 1
 * and fills *value when found; else puts `fresh`, fills *value with it
 * and returns 0; or GTR_E_NOMEM (nothing put).
 */
int gtr_idmap_get_or_put(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t fresh, uint64_t *value);

/* Removes a key; returns 1 if it was there, 0 otherwise. */
int gtr_idmap_del(gtr_idmap *m, uint64_t table, uint64_t id);

size_t gtr_idmap_count(const gtr_idmap *m);

/* The most slots a lookup of a key present probes (1: none moved), for
 * tests: ids chosen to share a slot must not make it the map's size. */
size_t gtr_idmap_probe_max(const gtr_idmap *m);

/*
 * The entries in no particular order: start with *it = 0; each call
 * fills the next entry and returns 1, or returns 0 when there is none.
 */
int gtr_idmap_next(const gtr_idmap *m, size_t *it, uint64_t *table, uint64_t *id, uint64_t *value);

/* Bytes the map holds, for memory accounting. */
size_t gtr_idmap_bytes(const gtr_idmap *m);

/*
 * The same map for ids that count up from about 1 in each table (a v2
 * generation's strings and stacks): an array per table, so that a
 * lookup is one load, not a probe of a table that holds every
 * generation's. Tables are numbered from 0, as densely. An id far past
 * its table's count, or a table far past the others, goes to a
 * gtr_idmap instead, so memory follows the entries put, whatever the
 * ids. Values must be below 2^63. Not thread-safe for writes; concurrent
 * lookups on a map no longer written are fine.
 */
typedef struct gtr_idvec gtr_idvec;

gtr_idvec *gtr_idvec_create(void);
void gtr_idvec_free(gtr_idvec *m);
/* As gtr_idmap_put: 0, 1 when the key was there (value replaced), GTR_E_NOMEM. */
int gtr_idvec_put(gtr_idvec *m, uint64_t table, uint64_t id, uint64_t value);
/* As gtr_idmap_get. */
int gtr_idvec_get(const gtr_idvec *m, uint64_t table, uint64_t id, uint64_t *value);
size_t gtr_idvec_count(const gtr_idvec *m);

/*
 * 32-bit values by 64-bit id, for ids that mostly come close together
 * (the goroutines of a generation: ids count up, so the new ones fill a
 * few pages): pages of GTR_IDPAGE ids, found by their number, so that a
 * run of new ids costs an array's stores, not a probe of a big table
 * each. Memory follows the ids put, whatever they are: past 64 + n/16
 * pages for n ids, a new page's ids go to a map instead (and stay
 * there until the next clear). Refilled often: gtr_idpage_clear keeps
 * the memory.
 */
#define GTR_IDPAGE_BITS 9
typedef struct gtr_idpage gtr_idpage;

gtr_idpage *gtr_idpage_create(void);
void gtr_idpage_free(gtr_idpage *m);
void gtr_idpage_clear(gtr_idpage *m);

/* The place of id's value (0: none yet), made when missing; the caller
 * writes a nonzero value in an empty one at once. A pointer lasts until
 * the next call. NULL: out of memory. */
uint32_t *gtr_idpage_slot(gtr_idpage *m, uint64_t id);

/* Pages made in all, for tests: sparse ids must not make one each. */
size_t gtr_idpage_pages(const gtr_idpage *m);

/*
 * Items of elem bytes found by a 64-bit id, each kept only while it is
 * alive: a dropped item's slot is reused, so memory follows the items
 * alive at once (goroutines running, goroutines not yet exited), not all
 * there have been. A pointer to an item lasts until the next add.
 */
typedef struct gtr_idpool_ent {
	uint64_t id, at1;    /* at1: the item's slot + 1, 0 for an empty entry */
} gtr_idpool_ent;

typedef struct gtr_idpool {
	/* id -> slot: open addressing in 16-byte entries, half an idmap's,
	 * as the pool is looked up once per event or per share */
	gtr_idpool_ent *tab;
	size_t tcap, tcount; /* tcap: a power of two */
	uint64_t seed;
	unsigned char *items;
	uint8_t *used;       /* per slot: it holds an item */
	size_t elem, n;      /* slots in use or freed: 0..n-1 */
	size_t cap, capused, capfreed;
	size_t *freed;       /* slots to reuse */
	size_t nfreed;
	/* The id found or added last and its slot + 1 (0: none): an event
	 * names its goroutine several times, and the next event often the
	 * same one, so most finds are answered here, without a probe. */
	uint64_t last_id, last_at1;
} gtr_idpool;

/* 0 or GTR_E_NOMEM. A pool that failed to start can still be freed. */
int gtr_idpool_init(gtr_idpool *p, size_t elem);
void gtr_idpool_free(gtr_idpool *p);

/* The item of id, or NULL. (Not const: it remembers what it found.) */
void *gtr_idpool_find(gtr_idpool *p, uint64_t id);

/* A zeroed item for id, which must not be in the pool; NULL when out of memory. */
void *gtr_idpool_add(gtr_idpool *p, uint64_t id);

/* Drops the item of id, if there is one. */
void gtr_idpool_drop(gtr_idpool *p, uint64_t id);

/* The item in slot i (0..p->n-1), or NULL when the slot is free. */
static inline void *gtr_idpool_at(const gtr_idpool *p, size_t i)
{
	return p->used[i] ? p->items + i * p->elem : NULL;
}

#endif
