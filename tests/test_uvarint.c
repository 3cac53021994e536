/* tests/test_uvarint.c: the varint kernels, against a straightforward encoder. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "simd/isa.h"

static size_t encode(uint64_t v, uint8_t *out)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

Test(uvarint, round_trips_edges)
{
	static const uint64_t vals[] = {0, 1, 127, 128, 255, 16383, 16384, (1ull << 32) - 1,
					1ull << 35, (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		uint8_t buf[16];
		size_t n = encode(vals[i], buf);
		uint64_t got = 0;
		cr_assert_eq(gtr_uvarint_decode(buf, buf + n, &got), (int)n);
		cr_assert_eq(got, vals[i]);
		/* One byte short of the end is never read past. */
		cr_assert_eq(gtr_uvarint_decode(buf, buf + n - 1, &got), GTR_UVARINT_SHORT);
	}
}

Test(uvarint, rejects_overlong)
{
	uint8_t buf[12];
	memset(buf, 0x80, sizeof buf);
	buf[11] = 0;
	uint64_t v;
	cr_assert_eq(gtr_uvarint_decode(buf, buf + sizeof buf, &v), GTR_UVARINT_OVERFLOW);
	/* Ten bytes whose last one carries more than the 64th bit. */
	uint8_t big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	cr_assert_eq(gtr_uvarint_decode(big, big + 10, &v), GTR_UVARINT_OVERFLOW);
}

Test(uvarint, skip_and_decode_n_agree_on_random_streams)
{
	gtr_kernels k;
	cr_assert_eq(gtr_kernels_init(&k, NULL), 0);
	srand(42);
	enum { N = 5000 };
	uint8_t *buf = malloc(N * 10);
	uint64_t *vals = malloc(N * sizeof *vals), *got = malloc(N * sizeof *got);
	size_t len = 0;
	for (int i = 0; i < N; i++) {
		int bits = rand() % 65;
		uint64_t v = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand();
		vals[i] = bits == 64 ? v : v & ((1ull << bits) - 1);
		len += encode(vals[i], buf + len);
	}
	cr_assert_eq(k.uvarint_skip(buf, buf + len, N), (ptrdiff_t)len);
	cr_assert_eq(k.uvarint_decode_n(buf, buf + len, got, N), (ptrdiff_t)len);
	cr_assert_eq(memcmp(got, vals, N * sizeof *vals), 0);
	/* Every shorter buffer ends inside a varint or has fewer than N. */
	cr_assert_eq(k.uvarint_skip(buf, buf + len - 1, N), GTR_UVARINT_SKIP_SHORT);
	free(buf);
	free(vals);
	free(got);
}

Test(isa, forcing)
{
	gtr_kernels k;
	cr_assert_eq(gtr_kernels_init(&k, "scalar"), 0);
	cr_assert_eq(k.isa, GTR_ISA_SCALAR);
	cr_assert_eq(gtr_kernels_init(&k, "neon"), -1);
	cr_assert_str_eq(gtr_isa_name(GTR_ISA_AVX2), "avx2");
}
