/* tests/test_idmap.c */
#include <criterion/criterion.h>

#include "core/idmap.h"

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
