/* tests/test_idmap.c */
#include <criterion/criterion.h>
#include <string.h>

#include "core/base/idmap.h"

Test(idmap, put_get_replace_grow)
{
	gtr_idmap *m = gtr_idmap_create();
	cr_assert_not_null(m);
	for (uint64_t t = 0; t < 3; t++)
		for (uint64_t i = 0; i < 10000; i++)
			cr_assert_eq(gtr_idmap_put(m, t, i * 7919, t * 1000000 + i), 0);
	cr_assert_eq(gtr_idmap_count(m), 30000);
	uint64_t v;
	for (uint64_t t = 0; t < 3; t++)
		for (uint64_t i = 0; i < 10000; i++) {
			cr_assert_eq(gtr_idmap_get(m, t, i * 7919, &v), 1);
			cr_assert_eq(v, t * 1000000 + i);
		}
	cr_assert_eq(gtr_idmap_get(m, 3, 0, &v), 0);
	cr_assert_eq(gtr_idmap_get(m, 0, 1, &v), 0);
	cr_assert_eq(gtr_idmap_put(m, 1, 7919, 5), 1);
	cr_assert_eq(gtr_idmap_get(m, 1, 7919, &v), 1);
	cr_assert_eq(v, 5);
	cr_assert_eq(gtr_idmap_count(m), 30000);
	gtr_idmap_free(m);
	gtr_idmap_free(NULL);
}

Test(idmap, get_or_put_puts_only_what_is_missing)
{
	gtr_idmap *m = gtr_idmap_create();
	uint64_t v;
	/* Enough keys to grow the map several times between the two kinds of call. */
	for (uint64_t i = 0; i < 5000; i++) {
		cr_assert_eq(gtr_idmap_get_or_put(m, i % 2, i, i + 100, &v), 0);
		cr_assert_eq(v, i + 100);
	}
	for (uint64_t i = 0; i < 5000; i++) {
		cr_assert_eq(gtr_idmap_get_or_put(m, i % 2, i, 7, &v), 1, "key %llu", (unsigned long long)i);
		cr_assert_eq(v, i + 100);
		/* the same id in the other table is another key */
		cr_assert_eq(gtr_idmap_get_or_put(m, 2, i, i, &v), 0);
	}
	cr_assert_eq(gtr_idmap_count(m), 10000);
	cr_assert_eq(gtr_idmap_get(m, 1, 4999, &v), 1);
	cr_assert_eq(v, 5099);
	gtr_idmap_free(m);
}

Test(idmap, clear_empties_and_the_map_fills_again)
{
	gtr_idmap *m = gtr_idmap_create();
	uint64_t v;
	for (int round = 0; round < 3; round++) {
		/* each round other keys, some the same as the round before */
		for (uint64_t i = 0; i < 3000; i++)
			cr_assert_eq(gtr_idmap_put(m, 0, i + (uint64_t)round * 1000, i), 0);
		cr_assert_eq(gtr_idmap_count(m), 3000);
		cr_assert_eq(gtr_idmap_get(m, 0, (uint64_t)round * 1000 + 2999, &v), 1);
		cr_assert_eq(v, 2999);
		gtr_idmap_clear(m);
		cr_assert_eq(gtr_idmap_count(m), 0);
		for (uint64_t i = 0; i < 5000; i++)
			cr_assert_eq(gtr_idmap_get(m, 0, i, &v), 0, "key %llu kept", (unsigned long long)i);
	}
	gtr_idmap_clear(m); /* an empty one too */
	cr_assert_eq(gtr_idmap_put(m, 1, 1, 1), 0);
	gtr_idmap_free(m);
}

Test(idmap, delete_keeps_the_rest_reachable)
{
	gtr_idmap *m = gtr_idmap_create();
	enum { N = 20000 };
	for (uint64_t i = 0; i < N; i++)
		cr_assert_eq(gtr_idmap_put(m, i % 3, i, i * 2), 0);
	/* Delete every other key, in an order unrelated to insertion. */
	for (uint64_t k = 0; k < N; k++) {
		uint64_t i = (k * 7919) % N;
		if (i % 2 == 0)
			cr_assert_eq(gtr_idmap_del(m, i % 3, i), 1);
	}
	cr_assert_eq(gtr_idmap_count(m), N / 2);
	uint64_t v;
	for (uint64_t i = 0; i < N; i++) {
		int found = gtr_idmap_get(m, i % 3, i, &v);
		cr_assert_eq(found, (int)(i % 2), "key %llu", (unsigned long long)i);
		if (found)
			cr_assert_eq(v, i * 2);
	}
	cr_assert_eq(gtr_idmap_del(m, 0, 0), 0);
	/* Deleted keys can come back. */
	cr_assert_eq(gtr_idmap_put(m, 0, 0, 5), 0);
	cr_assert_eq(gtr_idmap_get(m, 0, 0, &v), 1);
	gtr_idmap_free(m);
}

/* gtr_idpage against gtr_idmap, over rounds cleared between them: ids
 * close together (pages), far apart (the map), and both at once. */
Test(idpage, agrees_with_idmap_dense_and_sparse)
{
	gtr_idpage *pg = gtr_idpage_create();
	cr_assert_not_null(pg);
	srand(7);
	for (int round = 0; round < 6; round++) {
		gtr_idmap *m = gtr_idmap_create();
		cr_assert_not_null(m);
		uint64_t base = (uint64_t)round * 100000;
		for (uint32_t n = 1; n <= 20000; n++) {
			uint64_t id;
			if (round % 3 == 0) /* counting up, with some old ones */
				id = rand() % 8 ? base + (uint64_t)(rand() % 30000) : (uint64_t)(rand() % 100);
			else if (round % 3 == 1) /* a page each, far apart, and hostile */
				id = (uint64_t)rand() << 20 ^ (uint64_t)rand() << 40 ^ (uint64_t)(rand() % 7);
			else /* both */
				id = rand() % 2 ? base + (uint64_t)(rand() % 5000) : (uint64_t)rand() << 33;
			uint32_t *at = gtr_idpage_slot(pg, id);
			cr_assert_not_null(at);
			uint64_t v;
			int had = gtr_idmap_get(m, 0, id, &v);
			cr_assert_eq(*at != 0, had, "round %d id %llu", round, (unsigned long long)id);
			if (had)
				cr_assert_eq(*at, (uint32_t)v);
			else {
				*at = n;
				cr_assert_eq(gtr_idmap_put(m, 0, id, n), 0);
			}
		}
		size_t it = 0;
		uint64_t t, id, v;
		while (gtr_idmap_next(m, &it, &t, &id, &v)) {
			uint32_t *at = gtr_idpage_slot(pg, id);
			cr_assert(at && *at == (uint32_t)v, "round %d: id %llu lost", round, (unsigned long long)id);
		}
		/* pages follow the ids: 20000 of them make at most 64 + 20000/16,
		 * and the pages of one round serve the next */
		cr_assert_leq(gtr_idpage_pages(pg), 64 + 1250 + 1);
		if (round % 3 == 1)
			cr_assert_geq(gtr_idpage_pages(pg), 64 + 1000, "the sparse ids took no pages");
		gtr_idmap_free(m);
		gtr_idpage_clear(pg);
		uint32_t *at = gtr_idpage_slot(pg, base + 1);
		cr_assert(at && *at == 0, "kept across a clear");
		*at = 1;
		gtr_idpage_clear(pg);
	}
	gtr_idpage_free(pg);
	gtr_idpage_free(NULL);
}

Test(idpool, slots_are_reused_and_items_kept)
{
	gtr_idpool p;
	cr_assert_eq(gtr_idpool_init(&p, sizeof(uint64_t) * 3), 0);
	/* Ids come and go, at most 100 alive at once: the slots stay at 100. */
	for (uint64_t id = 1; id <= 100000; id++) {
		cr_assert_null(gtr_idpool_find(&p, id));
		uint64_t *it = gtr_idpool_add(&p, id);
		cr_assert_not_null(it);
		cr_assert(it[0] == 0 && it[1] == 0 && it[2] == 0, "not zeroed");
		it[0] = id;
		it[2] = ~id;
		if (id > 100) {
			uint64_t *old = gtr_idpool_find(&p, id - 100);
			cr_assert_not_null(old);
			cr_assert_eq(old[0], id - 100);
			cr_assert_eq(old[2], ~(id - 100));
			gtr_idpool_drop(&p, id - 100);
			cr_assert_null(gtr_idpool_find(&p, id - 100));
		}
	}
	cr_assert_eq(p.n, 101);
	gtr_idpool_drop(&p, 7); /* long gone: nothing happens */
	size_t alive = 0;
	for (size_t i = 0; i < p.n; i++) {
		uint64_t *it = gtr_idpool_at(&p, i);
		if (it) {
			alive++;
			cr_assert_geq(it[0], 100000 - 99);
			cr_assert_eq(gtr_idpool_find(&p, it[0]), it);
		}
	}
	cr_assert_eq(alive, 100);
	gtr_idpool_free(&p);
}

/* gtr_idvec against gtr_idmap, the reference, on the same keys. */
static void idvec_same(const gtr_idvec *v, const gtr_idmap *m, uint64_t table, uint64_t id)
{
	uint64_t a = 0, b = 0;
	int ga = gtr_idvec_get(v, table, id, &a), gb = gtr_idmap_get(m, table, id, &b);
	cr_assert_eq(ga, gb, "table %llu id %llu: %d vs %d", (unsigned long long)table, (unsigned long long)id, ga, gb);
	if (ga)
		cr_assert_eq(a, b, "table %llu id %llu", (unsigned long long)table, (unsigned long long)id);
}

Test(idvec, agrees_with_idmap_on_dense_far_and_hostile_keys)
{
	gtr_idvec *v = gtr_idvec_create();
	gtr_idmap *m = gtr_idmap_create();
	cr_assert(v && m);
	srand(5);
	for (int i = 0; i < 200000; i++) {
		uint64_t table, id;
		int kind = rand() % 10;
		if (kind < 7) { /* generations' tables counting up */
			table = (uint64_t)(rand() % 40);
			id = (uint64_t)(rand() % 3000);
		} else if (kind == 7) { /* an id far past its table's count */
			table = (uint64_t)(rand() % 40);
			id = ((uint64_t)rand() << 31) ^ (uint64_t)rand();
		} else if (kind == 8) { /* a table far past the others */
			table = ((uint64_t)rand() << 20) + 1000;
			id = (uint64_t)(rand() % 100);
		} else { /* extremes */
			table = rand() % 2 ? UINT64_MAX : 0;
			id = rand() % 2 ? UINT64_MAX : (uint64_t)rand() % 5;
		}
		uint64_t val = (((uint64_t)rand() << 31) ^ (uint64_t)rand()) & ~(UINT64_C(1) << 63);
		int ra = gtr_idvec_put(v, table, id, val), rb = gtr_idmap_put(m, table, id, val);
		cr_assert_eq(ra, rb, "put table %llu id %llu: %d vs %d", (unsigned long long)table,
			     (unsigned long long)id, ra, rb);
		idvec_same(v, m, table, id);
		idvec_same(v, m, table, id + 1);
		idvec_same(v, m, table + 1, id);
	}
	cr_assert_eq(gtr_idvec_count(v), gtr_idmap_count(m));
	for (uint64_t table = 0; table < 41; table++)
		for (uint64_t id = 0; id < 3100; id++)
			idvec_same(v, m, table, id);
	gtr_idvec_free(v);
	gtr_idmap_free(m);
	gtr_idvec_free(NULL);
}

Test(idvec, ids_from_one_stay_in_rows)
{
	gtr_idvec *v = gtr_idvec_create();
	cr_assert_not_null(v);
	for (uint64_t g = 0; g < 100; g++)
		for (uint64_t id = 1; id <= 5000; id++)
			cr_assert_eq(gtr_idvec_put(v, g, id, g << 32 | id), 0);
	cr_assert_eq(gtr_idvec_put(v, 7, 4000, 1), 1, "a duplicate is reported");
	uint64_t x;
	cr_assert(gtr_idvec_get(v, 7, 4000, &x) && x == 1);
	cr_assert(gtr_idvec_get(v, 99, 5000, &x) && x == (UINT64_C(99) << 32 | 5000));
	cr_assert(!gtr_idvec_get(v, 99, 5001, &x));
	cr_assert(!gtr_idvec_get(v, 100, 1, &x));
	cr_assert(!gtr_idvec_get(v, 3, 0, &x));
	cr_assert_eq(gtr_idvec_count(v), 500000);
	gtr_idvec_free(v);
}

/* The inverse of MurmurHash3's 64-bit finalizer, to choose ids that the
 * finalizer alone, unseeded, would send to one slot. */
static uint64_t inv_mul(uint64_t c)
{
	uint64_t x = c; /* Newton's iteration: right to 3, 6, 12, 24, 48, 96 bits */
	for (int i = 0; i < 5; i++)
		x *= 2 - c * x;
	return x;
}

static uint64_t unfmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= inv_mul(UINT64_C(0xc4ceb9fe1a85ec53));
	x ^= x >> 33;
	x *= inv_mul(UINT64_C(0xff51afd7ed558ccd));
	return x ^ (x >> 33);
}

/* Ids from a hostile trace, chosen so that an unseeded finalizer gives
 * them all the same low 24 bits: in one table, and one per table (a
 * generation each) against a known table multiplier. Each lookup would
 * then probe through all of them; with the map's seeds the runs stay
 * short. */
Test(idmap, chosen_ids_do_not_share_a_probe_run)
{
	enum { N = 50000 };
	const uint64_t golden = UINT64_C(0x9e3779b97f4a7c15);
	gtr_idmap *one = gtr_idmap_create(), *many = gtr_idmap_create();
	cr_assert(one && many);
	for (uint64_t k = 0; k < N; k++) {
		uint64_t id = unfmix64(k << 24);
		cr_assert_eq(gtr_idmap_put(one, 0, id, k), 0);
		cr_assert_eq(gtr_idmap_put(many, k, unfmix64(0) ^ (k * golden), k), 0);
	}
	size_t p1 = gtr_idmap_probe_max(one), p2 = gtr_idmap_probe_max(many);
	cr_assert_lt(p1, 200, "one table: a probe run of %zu slots for %d keys", p1, N);
	cr_assert_lt(p2, 200, "a table each: a probe run of %zu slots for %d keys", p2, N);
	uint64_t v;
	for (uint64_t k = 0; k < N; k += 997) {
		cr_assert_eq(gtr_idmap_get(one, 0, unfmix64(k << 24), &v), 1);
		cr_assert_eq(v, k);
		cr_assert_eq(gtr_idmap_get(many, k, unfmix64(0) ^ (k * golden), &v), 1);
		cr_assert_eq(v, k);
	}
	gtr_idmap_free(one);
	gtr_idmap_free(many);
}

/* A small deterministic generator for the model tests below. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * gtr_idmap_get_hot against a plain array, under gets of the same key in
 * runs (what it remembers) mixed with puts, deletes (whose shifts move
 * keys), clears and bursts of new keys (which grow the map and move them
 * all): a remembered slot that outlived its key would answer wrong here.
 */
Test(idmap, get_hot_agrees_through_puts_deletes_grows_and_clears)
{
	enum { TABLES = 3, IDS = 4096 };
	static uint64_t model[TABLES][IDS]; /* value + 1, 0: absent */
	gtr_idmap *m = gtr_idmap_create();
	cr_assert_not_null(m);
	uint64_t s = 88172645463325252u, t = 0, id = 1, v;
	for (int op = 0; op < 400000; op++) {
		uint64_t r = next_rand(&s);
		if (r % 4 != 0) { /* mostly: the same key again */
			t = (r >> 8) % TABLES;
			id = (r >> 16) % 64;
		}
		switch ((r >> 32) % 16) {
		case 0: case 1: case 2:
			cr_assert_geq(gtr_idmap_put(m, t, id, r >> 40), 0);
			model[t][id] = (r >> 40) + 1;
			break;
		case 3:
			cr_assert_eq(gtr_idmap_del(m, t, id), model[t][id] != 0);
			model[t][id] = 0;
			break;
		case 4:
			if ((r >> 20) % 64 == 0) {
				gtr_idmap_clear(m);
				memset(model, 0, sizeof model);
			} else if ((r >> 20) % 8 == 0) {
				for (uint64_t k = 64; k < IDS; k += 1 + (r >> 50) % 7) {
					cr_assert_geq(gtr_idmap_put(m, k % TABLES, k, k), 0);
					model[k % TABLES][k] = k + 1;
				}
			}
			break;
		default: {
			int found = gtr_idmap_get_hot(m, t, id, &v);
			cr_assert_eq(found, model[t][id] != 0, "op %d: table %llu id %llu", op,
				     (unsigned long long)t, (unsigned long long)id);
			if (found)
				cr_assert_eq(v + 1, model[t][id], "op %d", op);
		}
		}
	}
	for (uint64_t a = 0; a < TABLES; a++)
		for (uint64_t b = 0; b < IDS; b++) {
			cr_assert_eq(gtr_idmap_get(m, a, b, &v), model[a][b] != 0);
			if (model[a][b])
				cr_assert_eq(v + 1, model[a][b]);
		}
	gtr_idmap_free(m);
}

/* The pool's remembered item against a plain array, the same way: finds
 * of the same id in runs, adds (which grow the items and the table),
 * drops (whose shifts move entries, and whose slots are reused). */
Test(idpool, find_agrees_through_adds_drops_and_grows)
{
	enum { IDS = 4096 };
	static uint64_t model[IDS]; /* value + 1, 0: absent */
	gtr_idpool p;
	cr_assert_eq(gtr_idpool_init(&p, sizeof(uint64_t)), 0);
	uint64_t s = 2463534242u, id = 1;
	for (int op = 0; op < 400000; op++) {
		uint64_t r = next_rand(&s);
		if (r % 4 != 0)
			id = (r >> 16) % 64;
		uint64_t *it;
		switch ((r >> 32) % 16) {
		case 0: case 1: case 2:
			if (model[id])
				break;
			it = gtr_idpool_add(&p, id);
			cr_assert_not_null(it);
			*it = r >> 40;
			model[id] = (r >> 40) + 1;
			break;
		case 3:
			gtr_idpool_drop(&p, id);
			model[id] = 0;
			break;
		case 4:
			if ((r >> 20) % 8 == 0)
				for (uint64_t k = 64; k < IDS; k++)
					if (!model[k] && (k + r) % 5 == 0) {
						it = gtr_idpool_add(&p, k);
						cr_assert_not_null(it);
						*it = k;
						model[k] = k + 1;
					}
			break;
		default:
			it = gtr_idpool_find(&p, id);
			cr_assert_eq(it != NULL, model[id] != 0, "op %d: id %llu", op, (unsigned long long)id);
			if (it)
				cr_assert_eq(*it + 1, model[id], "op %d", op);
		}
	}
	for (uint64_t k = 0; k < IDS; k++) {
		uint64_t *it = gtr_idpool_find(&p, k);
		cr_assert_eq(it != NULL, model[k] != 0);
		if (it)
			cr_assert_eq(*it + 1, model[k]);
	}
	gtr_idpool_free(&p);
}
