/* tests/test_detect.c: the header check of core/trace/trace.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/trace/trace.h"

static int detect(const char *hdr, size_t n, int *v, gtr_error *e)
{
	gtr_family f;
	gtr_error_clear(e);
	return gtr_detect((const uint8_t *)hdr, n, v, &f, e);
}

Test(detect, every_known_version)
{
	static const int known[] = {5, 7, 8, 9, 10, 11, 19, 21, 22, 23, 25, 26};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		char h[16] = {0};
		snprintf(h, sizeof h, "go 1.%d trace", known[i]);
		int v = 0;
		gtr_error e;
		cr_assert_eq(detect(h, 16, &v, &e), 0, "go 1.%d", known[i]);
		cr_assert_eq(v, known[i]);
	}
}

Test(detect, refusals_name_the_problem)
{
	gtr_error e;
	int v;
	cr_assert_eq(detect("go 1.99 trace\0\0\0", 16, &v, &e), GTR_E_VERSION);
	cr_assert(strstr(e.msg, "go 1.99"));
	cr_assert_eq(detect("go 1.6 trace\0\0\0\0", 16, &v, &e), GTR_E_VERSION);
	cr_assert_eq(detect("\x1f\x8b\x08\0", 4, &v, &e), GTR_E_GZIP);
	cr_assert(strstr(e.msg, "gzip"));
	cr_assert_eq(detect("", 0, &v, &e), GTR_E_NOTTRACE);
	cr_assert_eq(detect("PK\3\4 zip file....", 16, &v, &e), GTR_E_NOTTRACE);
	cr_assert_eq(detect("go 1.26 trace", 13, &v, &e), GTR_E_TRUNCATED);
	cr_assert_eq(e.off, 13);
	cr_assert_eq(detect("go 1.26 traceXYZ", 16, &v, &e), GTR_E_NOTTRACE);
	cr_assert_eq(detect("go 1. trace\0\0\0\0\0", 16, &v, &e), GTR_E_NOTTRACE);
}

Test(error, first_report_wins)
{
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_error_set(&e, GTR_E_VARINT, 10, "first"), GTR_E_VARINT);
	gtr_error_set(&e, GTR_E_TRUNCATED, 20, "second");
	cr_assert_eq(e.code, GTR_E_VARINT);
	cr_assert_eq(e.off, 10);
	cr_assert_str_eq(e.msg, "first");
	cr_assert_eq(gtr_error_set(NULL, GTR_E_IO, 0, "x"), GTR_E_IO);
}
