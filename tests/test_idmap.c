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
