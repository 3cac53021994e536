/* core/idmap.c */
#include "idmap.h"
#include "error.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct slot {
	uint64_t table, id, value;
	uint64_t used;
} slot;

struct gtr_idmap {
	slot *slots;
	size_t cap; /* power of two */
	size_t count;
};

gtr_idmap *gtr_idmap_create(void)
{
	gtr_idmap *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
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

static size_t hash(uint64_t table, uint64_t id)
{
	uint64_t k[2] = {table, id};
	return (size_t)XXH3_64bits(k, sizeof k);
}

static slot *find(const gtr_idmap *m, uint64_t table, uint64_t id)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash(table, id) & mask;; i = (i + 1) & mask) {
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

int gtr_idmap_put(gtr_idmap *m, uint64_t table, uint64_t id, uint64_t value)
{
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

int gtr_idmap_get(const gtr_idmap *m, uint64_t table, uint64_t id, uint64_t *value)
{
	const slot *s = find(m, table, id);
	if (!s->used)
		return 0;
	*value = s->value;
	return 1;
}

int gtr_idmap_del(gtr_idmap *m, uint64_t table, uint64_t id)
{
	slot *s = find(m, table, id);
	if (!s->used)
		return 0;
	/* Backward-shift deletion keeps every probe run unbroken. */
	size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
	for (size_t j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		size_t home = hash(m->slots[j].table, m->slots[j].id) & mask;
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

size_t gtr_idmap_bytes(const gtr_idmap *m)
{
	return m->cap * sizeof(slot);
}

/* --- the pool --- */

int gtr_idpool_init(gtr_idpool *p, size_t elem)
{
	memset(p, 0, sizeof *p);
	p->elem = elem;
	p->ids = gtr_idmap_create();
	return p->ids ? 0 : GTR_E_NOMEM;
}

void gtr_idpool_free(gtr_idpool *p)
{
	gtr_idmap_free(p->ids);
	free(p->items);
	free(p->used);
	free(p->freed);
	memset(p, 0, sizeof *p);
}

void *gtr_idpool_find(const gtr_idpool *p, uint64_t id)
{
	uint64_t at;
	return gtr_idmap_get(p->ids, 0, id, &at) ? p->items + at * p->elem : NULL;
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
	if (gtr_idmap_put(p->ids, 0, id, at) < 0)
		return NULL;
	if (at == p->n)
		p->n++;
	else
		p->nfreed--;
	p->used[at] = 1;
	unsigned char *item = p->items + at * p->elem;
	memset(item, 0, p->elem);
	return item;
}

void gtr_idpool_drop(gtr_idpool *p, uint64_t id)
{
	uint64_t at;
	if (!gtr_idmap_get(p->ids, 0, id, &at))
		return;
	gtr_idmap_del(p->ids, 0, id);
	p->used[at] = 0;
	p->freed[p->nfreed++] = (size_t)at;
}
