/* core/base/idmap.c */
#include "core/base/idmap.h"
#include "core/base/error.h"
#include "core/base/vec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

typedef struct slot {
	uint64_t table, id, value;
	uint64_t used;
} slot;

struct gtr_idmap {
	slot *slots;
	size_t cap; /* power of two */
	size_t count;
	uint64_t seed, tmul; /* gtr_hash_seed; tmul is odd */
	size_t last;         /* the slot + 1 gtr_idmap_get_hot last found a key in (0: none) */
};

static uint64_t process_seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;
static atomic_uint_fast64_t maps_made;

static void make_process_seed(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)&s;
	}
	process_seed = s;
}

/* Ids come from the trace, so a hostile one could pick them to fall in
 * one probe run, and make every lookup walk the whole map: each map
 * mixes seeds of its own (gtr_hash_seed). Nothing the map answers
 * depends on them; gtr_idmap_next's order does. */
uint64_t gtr_hash_seed(void)
{
	pthread_once(&seed_once, make_process_seed);
	uint64_t n = atomic_fetch_add_explicit(&maps_made, 1, memory_order_relaxed);
	return gtr_fmix64(process_seed + n * UINT64_C(0x9e3779b97f4a7c15));
}

gtr_idmap *gtr_idmap_create(void)
{
	gtr_idmap *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->seed = gtr_hash_seed();
	m->tmul = gtr_hash_seed() | 1;
	m->cap = 64;
	m->slots = calloc(m->cap, sizeof *m->slots);
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void gtr_idmap_free(gtr_idmap *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

void gtr_idmap_clear(gtr_idmap *m)
{
	if (m->count)
		memset(m->slots, 0, m->cap * sizeof *m->slots);
	m->count = 0;
}

/* The finalizer over the two keys and the map's seeds mixed: every bit
 * of each reaches the low bits that pick the slot (XXH3 of the 16 bytes
 * took a third of a lookup's time). The table is multiplied by a seed
 * too, or keys (t, id ^ t * K) would all hash alike for a known K. */
static size_t hash(const gtr_idmap *m, uint64_t table, uint64_t id)
{
	return (size_t)gtr_fmix64(id ^ m->seed ^ (table * m->tmul));
}

static slot *find(const gtr_idmap *m, uint64_t table, uint64_t id)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash(m, table, id) & mask;; i = (i + 1) & mask) {
		slot *s = &m->slots[i];
		if (!s->used || (s->table == table && s->id == id))
			return s;
	}
}

static int grow(gtr_idmap *m)
{
	size_t ncap = m->cap * 2;
	slot *ns = calloc(ncap, sizeof *ns);
	if (!ns)
		return GTR_E_NOMEM;
	slot *old = m->slots;
	size_t ocap = m->cap;
	m->slots = ns;
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used)
			*find(m, old[i].table, old[i].id) = old[i];
	free(old);
	return 0;
}

/* The slot of the key last found, if it still holds this key. The slot
 * is checked, not trusted: since it was found, a delete may have emptied
 * it or moved another key in, a clear emptied it, a grow moved every key
 * (slots only ever grow in number, so it is still one of them). */
static slot *recall(const gtr_idmap *m, uint64_t table, uint64_t id)
{
	slot *s = m->last ? &m->slots[m->last - 1] : NULL;
	return s && s->used && s->id == id && s->table == table ? s : NULL;
}

int gtr_idmap_put(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t value)
{
	slot *hot = recall(m, table, id);
	if (hot) {
		hot->value = value;
		return 1;
	}
	if ((m->count + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return GTR_E_NOMEM;
	slot *s = find(m, table, id);
	int existed = (int)s->used;
	s->table = table;
	s->id = id;
	s->value = value;
	s->used = 1;
	m->count += !existed;
	return existed;
}

int gtr_idmap_get_hot(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t *value)
{
	slot *s = recall(m, table, id);
	if (!s) {
		s = find(m, table, id);
		if (!s->used)
			return 0;
		m->last = (size_t)(s - m->slots) + 1;
	}
	*value = s->value;
	return 1;
}

int gtr_idmap_get(const gtr_idmap *m, uint64_t table, uint64_t id, uint64_t *value)
{
	const slot *s = find(m, table, id);
	if (!s->used)
		return 0;
	*value = s->value;
	return 1;
}

int gtr_idmap_get_or_put(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t fresh, uint64_t *value)
{
	if ((m->count + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return GTR_E_NOMEM;
	/* (grown first, as a put: once early at worst when the key is there) */
	slot *s = find(m, table, id);
	int found = (int)s->used;
	if (!found) {
		*s = (slot){table, id, fresh, 1};
		m->count++;
	}
	*value = s->value;
	return found;
}

int gtr_idmap_del(gtr_idmap *m, uint64_t table, uint64_t id)
{
	slot *s = find(m, table, id);
	if (!s->used)
		return 0;
	/* Backward-shift deletion keeps every probe run unbroken. */
	size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
	for (size_t j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		size_t home = hash(m, m->slots[j].table, m->slots[j].id) & mask;
		/* Move j back into the hole at i unless its home lies in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].used = 0;
	m->count--;
	return 1;
}

size_t gtr_idmap_count(const gtr_idmap *m)
{
	return m->count;
}

size_t gtr_idmap_probe_max(const gtr_idmap *m)
{
	size_t mask = m->cap - 1, most = 0;
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->slots[j].used)
			continue;
		size_t d = (j - (hash(m, m->slots[j].table, m->slots[j].id) & mask)) & mask;
		if (d + 1 > most)
			most = d + 1;
	}
	return most;
}

int gtr_idmap_next(const gtr_idmap *m, size_t *it, uint64_t *table, uint64_t *id, uint64_t *value)
{
	for (; *it < m->cap; (*it)++) {
		const slot *s = &m->slots[*it];
		if (s->used) {
			*table = s->table;
			*id = s->id;
			*value = s->value;
			(*it)++;
			return 1;
		}
	}
	return 0;
}

size_t gtr_idmap_bytes(const gtr_idmap *m)
{
	return m->cap * sizeof(slot);
}

/* --- dense ids --- */

/* One table: vals[id] has bit 63 set when id is there. */
typedef struct idrow {
	uint64_t *vals;
	size_t cap, count;
} idrow;

struct gtr_idvec {
	idrow *rows;
	size_t nrows, caprows;
	gtr_idmap *far; /* what does not go in a row */
	size_t count;
};

#define IDVEC_HAS (UINT64_C(1) << 63)

gtr_idvec *gtr_idvec_create(void)
{
	gtr_idvec *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->far = gtr_idmap_create();
	if (!m->far) {
		free(m);
		return NULL;
	}
	return m;
}

void gtr_idvec_free(gtr_idvec *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nrows; i++)
		free(m->rows[i].vals);
	free(m->rows);
	gtr_idmap_free(m->far);
	free(m);
}

int gtr_idvec_put(gtr_idvec *m, uint64_t table, uint64_t id, uint64_t value)
{
	/* A table at most a few past the last one, an id at most about twice
	 * its table's count: an array for it costs what its entries do. A
	 * key is in one place only: once far, it stays far (counts only grow,
	 * so an id in a row never becomes far). */
	size_t count = table < m->nrows ? m->rows[table].count : 0;
	uint64_t v;
	if (table > m->nrows + 64 || id > 2 * (uint64_t)count + 1024 ||
	    gtr_idmap_get(m->far, table, id, &v)) {
		int rc = gtr_idmap_put(m->far, table, id, value);
		m->count += rc == 0;
		return rc;
	}
	if (table >= m->nrows) {
		size_t n = (size_t)table + 1;
		if (gtr_grow(&m->rows, &m->caprows, n, sizeof *m->rows) < 0)
			return GTR_E_NOMEM;
		memset(m->rows + m->nrows, 0, (n - m->nrows) * sizeof *m->rows);
		m->nrows = n;
	}
	idrow *r = &m->rows[table];
	if (id >= r->cap) {
		size_t old = r->cap;
		if (gtr_grow(&r->vals, &r->cap, (size_t)id + 1, sizeof *r->vals) < 0)
			return GTR_E_NOMEM;
		memset(r->vals + old, 0, (r->cap - old) * sizeof *r->vals);
	}
	int existed = (r->vals[id] & IDVEC_HAS) != 0;
	r->vals[id] = value | IDVEC_HAS;
	r->count += !existed;
	m->count += !existed;
	return existed;
}

int gtr_idvec_get(const gtr_idvec *m, uint64_t table, uint64_t id, uint64_t *value)
{
	if (table < m->nrows && id < m->rows[table].cap && (m->rows[table].vals[id] & IDVEC_HAS)) {
		*value = m->rows[table].vals[id] & ~IDVEC_HAS;
		return 1;
	}
	return gtr_idmap_get(m->far, table, id, value);
}

size_t gtr_idvec_count(const gtr_idvec *m)
{
	return m->count;
}

/* --- pages --- */

#define PAGE_IDS ((size_t)1 << GTR_IDPAGE_BITS)
#define PAGE_FAR UINT64_MAX

struct gtr_idpage {
	gtr_idmap *dir;     /* page number -> index in pages, or PAGE_FAR */
	uint32_t **pages;   /* in use: 0..npages-1; made: 0..made-1 */
	size_t npages, made, cap;
	uint64_t key;       /* the page found last: its number + 1 (0 none) */
	uint32_t *last;
	gtr_idmap *far;     /* id -> index in farv, for ids of no page */
	uint32_t *farv;
	size_t nfar, capfar;
	size_t ids;         /* empty places handed out: the ids put */
};

gtr_idpage *gtr_idpage_create(void)
{
	gtr_idpage *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->dir = gtr_idmap_create();
	m->far = gtr_idmap_create();
	if (!m->dir || !m->far) {
		gtr_idpage_free(m);
		return NULL;
	}
	return m;
}

void gtr_idpage_free(gtr_idpage *m)
{
	if (!m)
		return;
	gtr_idmap_free(m->dir);
	gtr_idmap_free(m->far);
	for (size_t i = 0; i < m->made; i++)
		free(m->pages[i]);
	free(m->pages);
	free(m->farv);
	free(m);
}

void gtr_idpage_clear(gtr_idpage *m)
{
	for (size_t i = 0; i < m->npages; i++)
		memset(m->pages[i], 0, PAGE_IDS * sizeof **m->pages);
	m->npages = 0;
	m->key = 0;
	m->nfar = 0;
	m->ids = 0;
	gtr_idmap_clear(m->dir);
	gtr_idmap_clear(m->far);
}

size_t gtr_idpage_pages(const gtr_idpage *m)
{
	return m->made;
}

/* id's page, made when there is room; NULL: it has none (or out of
 * memory: *nomem). */
static uint32_t *page_of(gtr_idpage *m, uint64_t id, int *nomem)
{
	uint64_t key = id >> GTR_IDPAGE_BITS, v;
	if (m->key == key + 1)
		return m->last;
	uint32_t *pg = NULL;
	if (gtr_idmap_get(m->dir, 0, key, &v)) {
		if (v == PAGE_FAR)
			return NULL;
		pg = m->pages[v];
	} else {
		int room = m->npages < 64 + m->ids / 16;
		if (room && m->npages == m->made) {
			if (gtr_grow(&m->pages, &m->cap, m->made + 1, sizeof *m->pages) < 0 ||
			    !(m->pages[m->made] = calloc(PAGE_IDS, sizeof **m->pages))) {
				*nomem = 1;
				return NULL;
			}
			m->made++;
		}
		if (gtr_idmap_put(m->dir, 0, key, room ? m->npages : PAGE_FAR) < 0) {
			*nomem = 1;
			return NULL;
		}
		if (!room)
			return NULL;
		pg = m->pages[m->npages++];
	}
	m->key = key + 1;
	m->last = pg;
	return pg;
}

uint32_t *gtr_idpage_slot(gtr_idpage *m, uint64_t id)
{
	int nomem = 0;
	uint32_t *pg = page_of(m, id, &nomem), *at;
	if (nomem)
		return NULL;
	if (pg) {
		at = &pg[id & (PAGE_IDS - 1)];
	} else {
		uint64_t i;
		int found = gtr_idmap_get_or_put(m->far, 0, id, m->nfar, &i);
		if (found < 0)
			return NULL;
		if (!found) {
			if (gtr_grow(&m->farv, &m->capfar, m->nfar + 1, sizeof *m->farv) < 0) {
				gtr_idmap_del(m->far, 0, id);
				return NULL;
			}
			m->farv[m->nfar++] = 0;
		}
		at = &m->farv[i];
	}
	m->ids += *at == 0;
	return at;
}

/* --- the pool --- */

int gtr_idpool_init(gtr_idpool *p, size_t elem)
{
	memset(p, 0, sizeof *p);
	p->elem = elem;
	p->seed = gtr_hash_seed();
	p->tcap = 64;
	p->tab = calloc(p->tcap, sizeof *p->tab);
	return p->tab ? 0 : GTR_E_NOMEM;
}

void gtr_idpool_free(gtr_idpool *p)
{
	free(p->tab);
	free(p->items);
	free(p->used);
	free(p->freed);
	memset(p, 0, sizeof *p);
}

static size_t pool_home(const gtr_idpool *p, uint64_t id)
{
	return (size_t)gtr_fmix64(id ^ p->seed) & (p->tcap - 1);
}

/* The entry of id, or the empty one where it would go. */
static gtr_idpool_ent *pool_find(const gtr_idpool *p, uint64_t id)
{
	size_t mask = p->tcap - 1;
	for (size_t i = pool_home(p, id);; i = (i + 1) & mask) {
		gtr_idpool_ent *e = &p->tab[i];
		if (!e->at1 || e->id == id)
			return e;
	}
}

static int pool_grow(gtr_idpool *p)
{
	if (p->tcap > SIZE_MAX / 2 / sizeof *p->tab)
		return GTR_E_NOMEM;
	gtr_idpool_ent *old = p->tab;
	size_t ocap = p->tcap;
	gtr_idpool_ent *nt = calloc(ocap * 2, sizeof *nt);
	if (!nt)
		return GTR_E_NOMEM;
	p->tab = nt;
	p->tcap = ocap * 2;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].at1)
			*pool_find(p, old[i].id) = old[i];
	free(old);
	return 0;
}

void *gtr_idpool_find(gtr_idpool *p, uint64_t id)
{
	if (p->last_at1 && p->last_id == id)
		return p->items + (p->last_at1 - 1) * p->elem;
	const gtr_idpool_ent *e = pool_find(p, id);
	if (!e->at1)
		return NULL;
	p->last_id = id;
	p->last_at1 = e->at1;
	return p->items + (e->at1 - 1) * p->elem;
}

void *gtr_idpool_add(gtr_idpool *p, uint64_t id)
{
	size_t at = p->n;
	if (p->nfreed) {
		at = p->freed[p->nfreed - 1];
	} else if (gtr_grow(&p->items, &p->cap, p->n + 1, p->elem) < 0 ||
		   gtr_grow(&p->used, &p->capused, p->n + 1, 1) < 0 ||
		   /* Room to free every at: a drop never fails. */
		   gtr_grow(&p->freed, &p->capfreed, p->n + 1, sizeof *p->freed) < 0) {
		return NULL;
	}
	if ((p->tcount + 1) * 4 > p->tcap * 3 && pool_grow(p) < 0)
		return NULL;
	gtr_idpool_ent *e = pool_find(p, id);
	if (!e->at1)
		p->tcount++;
	e->id = id;
	e->at1 = (uint64_t)at + 1;
	if (at == p->n)
		p->n++;
	else
		p->nfreed--;
	p->used[at] = 1;
	p->last_id = id;
	p->last_at1 = (uint64_t)at + 1;
	unsigned char *item = p->items + at * p->elem;
	memset(item, 0, p->elem);
	return item;
}

void gtr_idpool_drop(gtr_idpool *p, uint64_t id)
{
	gtr_idpool_ent *e = pool_find(p, id);
	if (!e->at1)
		return;
	size_t at = (size_t)(e->at1 - 1);
	if (p->last_at1 == e->at1)
		p->last_at1 = 0;
	/* Backward-shift deletion, as gtr_idmap_del. */
	size_t mask = p->tcap - 1, i = (size_t)(e - p->tab);
	for (size_t j = (i + 1) & mask; p->tab[j].at1; j = (j + 1) & mask) {
		size_t home = pool_home(p, p->tab[j].id);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			p->tab[i] = p->tab[j];
			i = j;
		}
	}
	p->tab[i].at1 = 0;
	p->tcount--;
	p->used[at] = 0;
	p->freed[p->nfreed++] = at;
}
