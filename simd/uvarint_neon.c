/*
 * simd/uvarint_neon.c: NEON uvarint kernels (arm64).
 *
 * NEON is part of every AArch64 CPU, so these need no detection. What
 * they vectorise is what the hot walks call on whole batches:
 *
 *  - marks, count and the block masks of the others: 64 continuation bits from
 *    four 16-byte compares, ANDed with each byte's bit and folded with
 *    three pairwise adds (NEON has no movemask);
 *  - record_lens: simd/lens_block.h over those masks;
 *  - decode32_lut: a block of varints of at most 4 bytes each, four to a
 *    vector (one 4-byte load each, the bytes up to the first below 0x80
 *    kept, the 7-bit groups joined with shifts); a block with a longer
 *    varint goes to the scalar reference, which decodes exactly the
 *    varints of the block and finds every error; then the table, 64
 *    bytes in four registers, with one TBL per 16 values;
 *  - lut64_u32: that TBL alone.
 *
 * skip, decode_n, decode32_n and the record walk are the scalar
 * references on arm64 (simd/isa.c): their calls are per event or too
 * short for a block to pay.
 */
#include "uvarint_neon.h"

#ifdef GTR_HAVE_NEON_KERNELS

#include <arm_neon.h>
#include <string.h>

/* The continuation bits of 64 bytes: bit i is set iff q[i] >= 0x80. */
static inline uint64_t cont64_neon(const uint8_t *q)
{
	static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
	const uint8x16_t b = vld1q_u8(bit), hi = vdupq_n_u8(0x80);
	uint8x16_t a0 = vandq_u8(vtstq_u8(vld1q_u8(q), hi), b);
	uint8x16_t a1 = vandq_u8(vtstq_u8(vld1q_u8(q + 16), hi), b);
	uint8x16_t a2 = vandq_u8(vtstq_u8(vld1q_u8(q + 32), hi), b);
	uint8x16_t a3 = vandq_u8(vtstq_u8(vld1q_u8(q + 48), hi), b);
	/* Pairwise sums: byte k ends up with the bits of bytes 8k..8k+7. */
	uint8x16_t s = vpaddq_u8(vpaddq_u8(a0, a1), vpaddq_u8(a2, a3));
	s = vpaddq_u8(s, s);
	return vgetq_lane_u64(vreinterpretq_u64_u8(s), 0);
}

size_t gtr_uvarint_marks_neon(const uint8_t *p, const uint8_t *end, uint64_t *bits)
{
	size_t len = (size_t)(end - p), w = 0, set = 0;
	for (; len - w * 64 >= 64; w++) {
		uint64_t m = ~cont64_neon(p + w * 64);
		bits[w] = m;
		set += (size_t)__builtin_popcountll(m);
	}
	if (w * 64 < len)
		set += gtr_uvarint_marks_scalar(p + w * 64, end, bits + w);
	return set;
}

size_t gtr_uvarint_count_neon(const uint8_t *p, const uint8_t *end)
{
	size_t len = (size_t)(end - p), i = 0, n = 0;
	for (; len - i >= 64; i += 64)
		n += (size_t)__builtin_popcountll(~cont64_neon(p + i));
	return n + gtr_uvarint_count_scalar(p + i, end);
}

#define LENS_ISA neon
#define LENS_TARGET
#include "lens_block.h"
#undef LENS_ISA
#undef LENS_TARGET

/* The bits below position `span` (0..64). */
static inline uint64_t below(unsigned span)
{
	return span >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << span) - 1;
}

/*
 * The first `take` varints of a block whose ends are t, none longer than
 * 4 bytes nor starting past byte 60: four to a vector.
 */
static inline void decode_short32_neon(const uint8_t *q, uint64_t t, size_t take, uint32_t *out)
{
	uint32_t st[68], x4[4];
	unsigned s = 0;
	size_t j = 0;
	for (; j < take; j++) {
		st[j] = s;
		s = (unsigned)__builtin_ctzll(t) + 1;
		t &= t - 1;
	}
	for (; j % 4; j++)
		st[j] = 0;
	const uint32x4_t flags = vdupq_n_u32(0x80808080), low7 = vdupq_n_u32(0x7f7f7f7f), one = vdupq_n_u32(1);
	for (j = 0; j < take; j += 4) {
		for (int i = 0; i < 4; i++)
			memcpy(&x4[i], q + st[j + (size_t)i], 4);
		uint32x4_t x = vld1q_u32(x4);
		/* Keep the bytes up to the first that ends the varint. */
		const uint32x4_t y = vbicq_u32(flags, x);
		x = vandq_u32(vandq_u32(x, low7), veorq_u32(y, vsubq_u32(y, one)));
		/* Join the 7-bit groups: pairs into 14 bits, then 28. */
		x = vorrq_u32(vandq_u32(x, vdupq_n_u32(0x007f007f)), vandq_u32(vshrq_n_u32(x, 1), vdupq_n_u32(0x3f803f80)));
		x = vorrq_u32(vandq_u32(x, vdupq_n_u32(0x00003fff)), vandq_u32(vshrq_n_u32(x, 2), vdupq_n_u32(0x0fffc000)));
		if (take - j >= 4) {
			vst1q_u32(out + j, x);
		} else {
			vst1q_u32(x4, x);
			memcpy(out + j, x4, (take - j) * sizeof *x4);
		}
	}
}

void gtr_lut64_u32_neon(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out)
{
	const uint8x16x4_t tab = vld1q_u8_x4(lut);
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		/* Saturated to a byte: 64 and more find nothing in the table (0). */
		uint16x8_t a = vcombine_u16(vqmovn_u32(vld1q_u32(v + i)), vqmovn_u32(vld1q_u32(v + i + 4)));
		uint16x8_t b = vcombine_u16(vqmovn_u32(vld1q_u32(v + i + 8)), vqmovn_u32(vld1q_u32(v + i + 12)));
		vst1q_u8(out + i, vqtbl4q_u8(tab, vcombine_u8(vqmovn_u16(a), vqmovn_u16(b))));
	}
	gtr_lut64_u32_scalar(v + i, n - i, lut, out + i);
}

ptrdiff_t gtr_uvarint_decode32_lut_neon(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used)
{
	const uint8_t *q = p;
	size_t n = 0, vec = 0; /* out[vec, n) wait for the table */
	while (end - q >= GTR_PAD && q < lim) {
		const uint64_t c = cont64_neon(q);
		const uint64_t t = ~c & below((unsigned)(lim - q < 61 ? lim - q : 61));
		if (t == 0)
			break; /* nothing ends before lim or byte 61 here: the reference says */
		const unsigned span = 64 - (unsigned)__builtin_clzll(t);
		const size_t take = (size_t)__builtin_popcountll(t);
		/* Four continuation bytes in a row: a varint of 5 bytes or more. */
		const uint64_t c2 = c & (c >> 1);
		if (c2 & (c2 >> 2) & below(span)) {
			/* The reference, on exactly this block's varints. */
			gtr_lut64_u32_neon(out + vec, n - vec, lut, steps + vec);
			size_t u;
			ptrdiff_t r = gtr_uvarint_decode32_lut_scalar(q, q + span, end, lut, out + n, steps + n, &u);
			if (r < 0)
				return r;
			n += (size_t)r;
			vec = n;
			q += u;
			continue;
		}
		decode_short32_neon(q, t, take, out + n);
		n += take;
		q += span;
	}
	gtr_lut64_u32_neon(out + vec, n - vec, lut, steps + vec);
	size_t u;
	ptrdiff_t r = gtr_uvarint_decode32_lut_scalar(q, lim, end, lut, out + n, steps + n, &u);
	if (r < 0)
		return r;
	*used = (size_t)(q - p) + u;
	return (ptrdiff_t)n + r;
}

#endif
