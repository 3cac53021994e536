/*
 * simd/lens_block.h: record_lens for the ISAs without byte compress and
 * permutes (SSE4.1, AVX2, NEON), private to simd/.
 *
 * A kernel file includes it after defining LENS_TARGET (its target
 * attribute, or nothing) and LENS_ISA (the suffix of the names), and a
 * function cont64_LENS_ISA (the continuation bits of 64 bytes, bit i for
 * byte i). It defines gtr_record_lens_LENS_ISA, with the contract of
 * gtr_record_lens_fn (simd/uvarint.h).
 *
 * The work goes a block of 64 record starts at a time over a window of
 * 128 bytes: the vector unit gives the 128 continuation bits, and every
 * start's length then comes from bit arithmetic on them with no branch
 * on the data: the ends after the tag (the window shifted by the start),
 * as many lowest ends cleared as the tag has values past the first, and
 * the lowest end left is where the record ends. A block whose window holds
 * 8 continuation bytes in a row (a varint too long for one load, or a
 * list of such bytes) goes to the scalar reference, which says which
 * starts it spoils; so does a start the window cannot measure.
 */

#define LENS_CAT_(a, b) a##_##b
#define LENS_CAT(a, b) LENS_CAT_(a, b)
#define LENS_NAME(name) LENS_CAT(name, LENS_ISA)

/* Bit i set iff bits i..i+7 of c are all set. */
static inline uint64_t LENS_NAME(lens_runs8)(uint64_t c)
{
	uint64_t a = c & (c >> 1);
	a &= a >> 2;
	return a & (a >> 4);
}

/*
 * The lengths of the records at w[0..cnt), cnt <= 64, whose window of
 * 128 bytes at w is readable and holds `valid` bytes of input (bytes at
 * and past `valid` are not input); c0, c1 its continuation bits, those
 * of bytes past `valid` clear. Returns 0, or -1 when the window holds a
 * run of 8 continuation bytes (nothing written).
 */
static inline LENS_TARGET int LENS_NAME(lens_block)(const uint8_t *w, size_t cnt, size_t valid, uint64_t c0,
						     uint64_t c1, const uint8_t nvals[256], uint8_t *out)
{
	if (LENS_NAME(lens_runs8)(c0) | LENS_NAME(lens_runs8)(c0 >> 32 | c1 << 32) | LENS_NAME(lens_runs8)(c1))
		return -1;
	const uint64_t v0 = valid >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << valid) - 1;
	const uint64_t v1 = valid >= 128 ? ~UINT64_C(0) : valid > 64 ? (UINT64_C(1) << (valid - 64)) - 1 : 0;
	const uint64_t e0 = ~c0 & v0, e1 = ~c1 & v1;
	/* at[r]: where the r-th end of the window is (r from 1); past the
	 * last, a place no record reaches. */
	uint8_t at[136];
	memset(at, 255, sizeof at);
	unsigned r = 1;
	for (uint64_t e = e0; e; e &= e - 1)
		at[r++] = (uint8_t)__builtin_ctzll(e);
	for (uint64_t e = e1 & v1; e && r < 72; e &= e - 1)
		at[r++] = (uint8_t)(64 + __builtin_ctzll(e));
	for (size_t j = 0; j < cnt; j++) {
		const unsigned nv = nvals[w[j]];
		/* The ends up to j, and so the one that ends a record of nv values. */
		const unsigned rank = (unsigned)__builtin_popcountll(e0 << (63 - j));
		const unsigned len = (unsigned)at[rank + (nv & 7)] + 1u - (unsigned)j;
		const unsigned counted = nv - 1u < GTR_LENS_MAXVALS && len <= GTR_LENS_MAX;
		/* A list: a one-byte length of 1 to 62, and that many bytes of input. */
		const unsigned nx = w[j + 1], ll = nx + 2u;
		const unsigned list = nv == GTR_WALK_LIST && nx - 1u < GTR_LENS_MAX - 2u && j + ll <= valid;
		out[j] = (uint8_t)(list ? ll : counted ? len : 0u);
	}
	return 0;
}

LENS_TARGET void LENS_NAME(gtr_record_lens)(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
					    uint8_t *out)
{
	uint8_t pad[128];
	for (size_t i = 0; i < n; i += 64) {
		const uint8_t *q = p + i, *w = q;
		const size_t cnt = n - i < 64 ? n - i : 64;
		const size_t room = (size_t)(end - q), valid = room < 128 ? room : 128;
		if (valid < 128) {
			/* Near the end: a copy, so that the window is readable. */
			memset(pad, 0, sizeof pad);
			memcpy(pad, q, valid);
			w = pad;
		}
		uint64_t c0 = LENS_NAME(cont64)(w), c1 = LENS_NAME(cont64)(w + 64);
		if (valid < 128) {
			c0 &= valid >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << valid) - 1;
			c1 &= valid > 64 ? (UINT64_C(1) << (valid - 64)) - 1 : 0;
		}
		if (LENS_NAME(lens_block)(w, cnt, valid, c0, c1, nvals, out + i) < 0)
			gtr_record_lens_scalar(q, cnt, end, nvals, out + i);
	}
}

#undef LENS_CAT_
#undef LENS_CAT
#undef LENS_NAME
