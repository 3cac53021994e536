/*
 * simd/uvarint_x86.c: SSE4.1, AVX2 and AVX-512 uvarint kernels.
 *
 * One binary carries all three: each function is compiled for its ISA
 * with a target attribute, and simd/isa.c hands out only those the CPU
 * and the OS can run. The kernels share one body (uvarint_body.h); what
 * differs per ISA is how the 64 continuation bits of a block are found
 * and how values are pulled out of it:
 *
 *  - SSE4.1 and AVX2 load each varint's 8 bytes into a 64-bit lane (2 or
 *    4 lanes per vector), keep the bytes up to its first terminator and
 *    squeeze the 7-bit groups together with three shift/mask steps;
 *  - AVX-512 finds the start and end of every varint of the block at
 *    once (VBMI2 byte compress of the boundary masks), gathers eight
 *    varints into eight lanes with one byte permute (VBMI) of the block
 *    held in a register, and squeezes them the same way.
 *
 * The skip and scan kernels need only the bit masks, popcount and a
 * select. No path reads outside [p, end): blocks are taken whole, 64
 * bytes at a time, only while 64 bytes remain.
 */
#include "uvarint_x86.h"

#ifdef GTR_HAVE_X86_KERNELS

#include <immintrin.h>
#include <string.h>

#define TARGET_SSE4 __attribute__((target("sse4.1,popcnt")))
#define TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define TARGET_AVX512 \
	__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,avx512vpopcntdq,bmi,bmi2,"  \
			       "popcnt")))

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define KERNEL(name) CAT(gtr_uvarint_##name, ISA)
#define PER_ISA(name) CAT(name, ISA)

/* The per-lane paths start an 8-byte load at most at byte 55 of a block. */
#define WINDOW_56 ((UINT64_C(1) << 56) - 1)



/* Bit i set iff bits i..i+7 of c are all set: a varint of 9+ bytes starts there. */
static inline uint64_t runs8(uint64_t c)
{
	uint64_t a = c & (c >> 1);
	a &= a >> 2;
	return a & (a >> 4);
}

/*
 * Calls for fewer values than this go to the scalar reference: on trace
 * data (three values in four take one byte) a block costs more than it
 * saves below about 8 values, and at 8 and more it wins (bench/kernels.c,
 * and gtr footprint, whose v2 path makes one call per event).
 */
#ifndef SMALL_N
#define SMALL_N 8
#endif

/* The bits below position `span` (0..64). */
static inline uint64_t below(unsigned span)
{
	return span >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << span) - 1;
}


/*
 * Position of the n-th (1 <= n <= 4) set bit of x, or 64 when it has
 * fewer, without pdep: the lowest bits cleared one by one, all four
 * candidates at once, then a choice without a branch.
 */
static inline unsigned select8_clear(uint64_t x, unsigned n)
{
	uint64_t x1 = x & (x - 1), x2 = x1 & (x1 - 1), x3 = x2 & (x2 - 1);
	uint64_t r = n <= 1 ? x : n == 2 ? x1 : n == 3 ? x2 : x3;
	return r ? (unsigned)__builtin_ctzll(r) : 64;
}

/*
 * Position of the n-th (1 <= n <= 4) set bit of a 16-bit m, or 16 or
 * more when it has fewer, without pdep: the lowest bits cleared one by
 * one, all four candidates at once, then a choice without a branch.
 */
static inline unsigned select16_clear(uint32_t m, unsigned n)
{
	uint32_t m1 = m & (m - 1), m2 = m1 & (m1 - 1), m3 = m2 & (m2 - 1);
	uint32_t r = n <= 1 ? m : n == 2 ? m1 : n == 3 ? m2 : m3;
	return (unsigned)__builtin_ctz(r | 0x10000);
}

/* Position of the k-th (k >= 1) set bit of t, which has at least k. */
static inline unsigned select_loop(uint64_t t, size_t k)
{
	while (--k)
		t &= t - 1;
	return (unsigned)__builtin_ctzll(t);
}

/*
 * The squeeze of one 64-bit lane holding a varint's first 8 bytes: keep
 * the bytes up to the first one below 0x80 (y ^ (y - 1) is every bit up
 * to the lowest terminator flag), drop the flags, then join 7-bit groups
 * into 14 and 28 bits with two multiply-adds (byte pairs times 1 and 128,
 * the masked bytes being the signed operand below 128; 14-bit pairs times
 * 1 and 16384) and the two 28-bit halves into 56 bits. Written once for
 * each vector width.
 */
#define SQUEEZE(T, V, and, or, sub, srl, maddubs, madd, set1)                           \
	do {                                                                           \
		T y_ = and(set1(0x8080808080808080), ~(V));                            \
		(V) = and(and((V), set1(0x7f7f7f7f7f7f7f7f)), y_ ^ sub(y_, set1(1)));  \
		(V) = maddubs(set1(0x8001800180018001), (V));                          \
		(V) = madd((V), set1(0x4000000140000001));                             \
		(V) = or(and((V), set1(0x000000000fffffff)),                           \
			 and(srl((V), 4), set1(0x00fffffff0000000)));                  \
	} while (0)

/*
 * lut64 on 16 values at a time with 16-byte shuffles (SSE4.1 and AVX2):
 * the values, saturated to 64, packed into bytes, and 64 made 0xff, an
 * index every shuffle maps to 0. The table's quarters are given
 * telescoped (LUT64_QUARTERS: quarter h xor quarter h - 1), and the
 * shuffle of quarter h looks up the byte less 16 h, which is negative,
 * and so 0, below quarter h: the xor of the four is the byte's own
 * quarter, at its low nibble. Four shuffles, three subtractions and
 * three xors for 16 values.
 */
#define LUT64_QUARTERS(lut, q)                                                                \
	do {                                                                                  \
		__m128i p_ = _mm_setzero_si128();                                             \
		for (int h_ = 0; h_ < 4; h_++) {                                              \
			__m128i c_ = _mm_loadu_si128((const __m128i *)((lut) + 16 * h_));     \
			(q)[h_] = _mm_xor_si128(c_, p_);                                      \
			p_ = c_;                                                              \
		}                                                                             \
	} while (0)
#define LUT64_BYTES(T, x, q, shuf, sub, xor, set1)                                            \
	xor(xor(shuf((q)[0], (x)), shuf((q)[1], sub((x), set1(16)))),                         \
	    xor(shuf((q)[2], sub((x), set1(32))), shuf((q)[3], sub((x), set1(48)))))
#define LUT64_16(v, q, out)                                                              \
	do {                                                                             \
		const __m128i c64_ = _mm_set1_epi32(64);                                 \
		__m128i a_ = _mm_min_epu32(_mm_loadu_si128((const __m128i *)(v)), c64_); \
		__m128i b_ = _mm_min_epu32(_mm_loadu_si128((const __m128i *)((v) + 4)), c64_); \
		__m128i c_ = _mm_min_epu32(_mm_loadu_si128((const __m128i *)((v) + 8)), c64_); \
		__m128i d_ = _mm_min_epu32(_mm_loadu_si128((const __m128i *)((v) + 12)), c64_); \
		__m128i x_ = _mm_packus_epi16(_mm_packus_epi32(a_, b_), _mm_packus_epi32(c_, d_)); \
		x_ = _mm_or_si128(x_, _mm_cmpeq_epi8(x_, _mm_set1_epi8(64)));            \
		_mm_storeu_si128((__m128i *)(out),                                       \
				 LUT64_BYTES(__m128i, x_, q, _mm_shuffle_epi8, _mm_sub_epi8, _mm_xor_si128, \
					     _mm_set1_epi8));                                    \
	} while (0)

/* ---- SSE4.1 ------------------------------------------------------------ */

#define S128(x) _mm_set1_epi64x((long long)UINT64_C(x))

static inline TARGET_SSE4 uint64_t cont64_sse4(const uint8_t *q)
{
	uint64_t m = 0;
	for (int i = 0; i < 4; i++)
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(q + 16 * i)))
		     << (16 * i);
	return m;
}

static inline TARGET_SSE4 unsigned select_sse4(uint64_t t, size_t k)
{
	return select_loop(t, k);
}

static inline TARGET_SSE4 __m128i squeeze_sse4(__m128i x)
{
	SQUEEZE(__m128i, x, _mm_and_si128, _mm_or_si128, _mm_sub_epi64, _mm_srli_epi64, _mm_maddubs_epi16,
		_mm_madd_epi16, S128);
	return x;
}

static inline TARGET_SSE4 void decode_block_sse4(const uint8_t *q, uint64_t t, size_t take, uint64_t *out)
{
	unsigned s = 0;
	size_t j = 0;
	for (; j + 2 <= take; j += 2) {
		unsigned s1 = (unsigned)__builtin_ctzll(t) + 1;
		t &= t - 1;
		unsigned s2 = (unsigned)__builtin_ctzll(t) + 1;
		t &= t - 1;
		__m128i x = _mm_set_epi64x((long long)gtr_load64(q + s1), (long long)gtr_load64(q + s));
		_mm_storeu_si128((__m128i *)(out + j), squeeze_sse4(x));
		s = s2;
	}
	if (j < take)
		_mm_storel_epi64((__m128i *)(out + j), squeeze_sse4(_mm_cvtsi64_si128((long long)gtr_load64(q + s))));
}

/* 64-bit values as decode32 writes them. */
static inline uint32_t narrow32(uint64_t v)
{
	return v < GTR_UVARINT32_LONG ? (uint32_t)v : GTR_UVARINT32_LONG;
}

/* The 7-bit groups of each 32-bit lane up to its first byte below 0x80
 * (every lane has one), as one value: keep those bytes, then two
 * multiply-adds as in SQUEEZE. */
#define SQUEEZE32(T, V, and, xor, sub, maddubs, madd, set1_32, set1_16)                      \
	do {                                                                               \
		T y_ = and(set1_32(INT32_MIN | 0x00808080), xor((V), set1_32(-1)));        \
		(V) = and(and((V), set1_32(0x7f7f7f7f)), xor(y_, sub(y_, set1_32(1))));      \
		(V) = madd(maddubs(set1_16((short)0x8001), (V)), set1_32(0x40000001));       \
	} while (0)

/*
 * The start of the next varint of a block from its ends t, which loses
 * its lowest bit: one past the lowest end. Past the last end (t == 0), 1:
 * a lane with nothing to decode loads inside the block.
 */
#define NEXT_START(s, t)                                                               \
	do {                                                                           \
		(s) = ((unsigned)__builtin_ctzll((t) | UINT64_C(1) << 63) + 1) & 63;    \
		(t) &= (t) - 1;                                                        \
	} while (0)

/* 4 bytes at q + s, as a lane. */
static inline int load32(const uint8_t *q, unsigned s)
{
	uint32_t v;
	memcpy(&v, q + s, 4);
	return (int)v;
}

/* decode_block32 for varints of 4 bytes or fewer that start at byte 60
 * at most: four to a vector, one 4-byte load each. */
static inline TARGET_SSE4 void decode_short32_sse4(const uint8_t *q, uint64_t t, size_t take, uint32_t *out)
{
	unsigned s0 = 0, s1, s2, s3;
	for (size_t j = 0; j < take; j += 4) {
		NEXT_START(s1, t);
		NEXT_START(s2, t);
		NEXT_START(s3, t);
		__m128i x = _mm_set_epi32(load32(q, s3), load32(q, s2), load32(q, s1), load32(q, s0));
		NEXT_START(s0, t);
		SQUEEZE32(__m128i, x, _mm_and_si128, _mm_xor_si128, _mm_sub_epi32, _mm_maddubs_epi16, _mm_madd_epi16,
			  _mm_set1_epi32, _mm_set1_epi16);
		if (take - j >= 4) {
			_mm_storeu_si128((__m128i *)(out + j), x);
		} else {
			uint32_t v[4];
			_mm_storeu_si128((__m128i *)v, x);
			memcpy(out + j, v, (take - j) * sizeof *v);
		}
	}
}

static inline TARGET_SSE4 unsigned select16_sse4(uint32_t m, unsigned n)
{
	return select16_clear(m, n);
}

static inline TARGET_SSE4 uint64_t value8_sse4(uint64_t x, unsigned bit)
{
	return gtr_uvarint_value8(x, bit);
}

static inline TARGET_SSE4 unsigned select8_sse4(uint64_t x, unsigned n)
{
	return select8_clear(x, n);
}

#define LENS_ISA sse4
#define LENS_TARGET TARGET_SSE4
#include "lens_block.h"
#undef LENS_ISA
#undef LENS_TARGET

#define ISA sse4
#define ISA_TARGET TARGET_SSE4
#define ISA_WINDOW WINDOW_56
#define ISA_WINDOW32 WINDOW_56
#define ISA_SHORT32
#include "uvarint_body.h"
#undef ISA_SHORT32
#undef ISA
#undef ISA_TARGET
#undef ISA_WINDOW
#undef ISA_WINDOW32

/* ---- AVX2 -------------------------------------------------------------- */

#define S256(x) _mm256_set1_epi64x((long long)UINT64_C(x))

static inline TARGET_AVX2 uint64_t cont64_avx2(const uint8_t *q)
{
	uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)q));
	uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(q + 32)));
	return (uint64_t)hi << 32 | lo;
}

static inline TARGET_AVX2 unsigned select_avx2(uint64_t t, size_t k)
{
	/* pdep would do it in one instruction, but is microcoded (slow) on
	 * AMD before Zen 3, which the AVX2 path must serve well too. */
	return select_loop(t, k);
}

static inline TARGET_AVX2 __m256i squeeze_avx2(__m256i x)
{
	SQUEEZE(__m256i, x, _mm256_and_si256, _mm256_or_si256, _mm256_sub_epi64, _mm256_srli_epi64,
		_mm256_maddubs_epi16, _mm256_madd_epi16, S256);
	return x;
}

static inline TARGET_AVX2 void decode_block_avx2(const uint8_t *q, uint64_t t, size_t take, uint64_t *out)
{
	unsigned s[4] = {0, 0, 0, 0};
	size_t j = 0;
	for (; j + 4 <= take; j += 4) {
		for (int i = 1; i < 4; i++) {
			s[i] = (unsigned)__builtin_ctzll(t) + 1;
			t &= t - 1;
		}
		__m256i x = _mm256_set_epi64x((long long)gtr_load64(q + s[3]), (long long)gtr_load64(q + s[2]),
					      (long long)gtr_load64(q + s[1]), (long long)gtr_load64(q + s[0]));
		_mm256_storeu_si256((__m256i *)(out + j), squeeze_avx2(x));
		s[0] = (unsigned)__builtin_ctzll(t) + 1;
		t &= t - 1;
	}
	size_t r = take - j;
	if (r == 0)
		return;
	/* 1 to 3 left: lanes past them load from the block's start, harmlessly. */
	for (size_t i = 1; i < 4; i++) {
		s[i] = i < r ? (unsigned)__builtin_ctzll(t) + 1 : 0;
		if (i < r)
			t &= t - 1;
	}
	__m256i x = _mm256_set_epi64x((long long)gtr_load64(q + s[3]), (long long)gtr_load64(q + s[2]),
				      (long long)gtr_load64(q + s[1]), (long long)gtr_load64(q + s[0]));
	__m256i keep = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)r), _mm256_set_epi64x(3, 2, 1, 0));
	_mm256_maskstore_epi64((long long *)(out + j), keep, squeeze_avx2(x));
}

/* decode_block32 for varints of 4 bytes or fewer that start at byte 60
 * at most: eight to a vector, one 4-byte load each. */
static inline TARGET_AVX2 void decode_short32_avx2(const uint8_t *q, uint64_t t, size_t take, uint32_t *out)
{
	unsigned s0 = 0, s1, s2, s3, s4, s5, s6, s7;
	for (size_t j = 0; j < take; j += 8) {
		NEXT_START(s1, t);
		NEXT_START(s2, t);
		NEXT_START(s3, t);
		NEXT_START(s4, t);
		NEXT_START(s5, t);
		NEXT_START(s6, t);
		NEXT_START(s7, t);
		__m256i x = _mm256_set_epi32(load32(q, s7), load32(q, s6), load32(q, s5), load32(q, s4), load32(q, s3),
					     load32(q, s2), load32(q, s1), load32(q, s0));
		NEXT_START(s0, t);
		SQUEEZE32(__m256i, x, _mm256_and_si256, _mm256_xor_si256, _mm256_sub_epi32, _mm256_maddubs_epi16,
			  _mm256_madd_epi16, _mm256_set1_epi32, _mm256_set1_epi16);
		if (take - j >= 8) {
			_mm256_storeu_si256((__m256i *)(out + j), x);
		} else {
			__m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(take - j)),
							  _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
			_mm256_maskstore_epi32((int *)(out + j), keep, x);
		}
	}
}

static inline TARGET_AVX2 unsigned select16_avx2(uint32_t m, unsigned n)
{
	return select16_clear(m, n); /* no pdep, as in select_avx2 */
}

static inline TARGET_AVX2 uint64_t value8_avx2(uint64_t x, unsigned bit)
{
	return gtr_uvarint_value8(x, bit);
}

static inline TARGET_AVX2 unsigned select8_avx2(uint64_t x, unsigned n)
{
	return select8_clear(x, n);
}

/* lut64 on 32 values at a time (LUT64_16 on 32-byte shuffles): returns
 * how many it did, a multiple of 32. */
static inline TARGET_AVX2 size_t lut64_32_avx2(const uint32_t *v, size_t n, const __m128i q4[4], uint8_t *out)
{
	const __m256i c64 = _mm256_set1_epi32(64), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	const __m256i q[4] = {_mm256_broadcastsi128_si256(q4[0]), _mm256_broadcastsi128_si256(q4[1]),
			      _mm256_broadcastsi128_si256(q4[2]), _mm256_broadcastsi128_si256(q4[3])};
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		__m256i a = _mm256_min_epu32(_mm256_loadu_si256((const __m256i *)(v + i)), c64);
		__m256i b = _mm256_min_epu32(_mm256_loadu_si256((const __m256i *)(v + i + 8)), c64);
		__m256i c = _mm256_min_epu32(_mm256_loadu_si256((const __m256i *)(v + i + 16)), c64);
		__m256i d = _mm256_min_epu32(_mm256_loadu_si256((const __m256i *)(v + i + 24)), c64);
		/* Packs work within 16-byte lanes: each 4 bytes of the result
		 * are 4 values of one input, the permute puts them in order. */
		__m256i x = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
		x = _mm256_permutevar8x32_epi32(x, order);
		x = _mm256_or_si256(x, _mm256_cmpeq_epi8(x, _mm256_set1_epi8(64)));
		_mm256_storeu_si256((__m256i *)(out + i), LUT64_BYTES(__m256i, x, q, _mm256_shuffle_epi8, _mm256_sub_epi8,
								       _mm256_xor_si256, _mm256_set1_epi8));
	}
	return i;
}

#define LENS_ISA avx2
#define LENS_TARGET TARGET_AVX2
#include "lens_block.h"
#undef LENS_ISA
#undef LENS_TARGET

#define ISA avx2
#define ISA_TARGET TARGET_AVX2
#define ISA_LUT64_32
#define ISA_WINDOW WINDOW_56
#define ISA_WINDOW32 WINDOW_56
#define ISA_SHORT32
#include "uvarint_body.h"
#undef ISA_SHORT32
#undef ISA
#undef ISA_TARGET
#undef ISA_WINDOW
#undef ISA_WINDOW32
#undef ISA_LUT64_32

/* ---- AVX-512 ----------------------------------------------------------- */

#define S512(x) _mm512_set1_epi64((long long)UINT64_C(x))

static inline TARGET_AVX512 uint64_t cont64_avx512(const uint8_t *q)
{
	return (uint64_t)_mm512_movepi8_mask(_mm512_loadu_si512((const void *)q));
}

static inline TARGET_AVX512 unsigned select_avx512(uint64_t t, size_t k)
{
	/* Every CPU with VBMI2 (Ice Lake, Zen 4 and later) has a fast pdep. */
	return (unsigned)__builtin_ctzll(_pdep_u64(UINT64_C(1) << (k - 1), t));
}

/* The 7-bit groups of the 4 bytes of each 32-bit lane, low byte first,
 * as one 28-bit value: two multiply-adds, bytes to 14-bit pairs, pairs to
 * 28 bits (the masked bytes are below 128, the signed operand). */
static inline TARGET_AVX512 __m512i squeeze32_avx512(__m512i x)
{
	x = _mm512_and_si512(x, _mm512_set1_epi32(0x7f7f7f7f));
	x = _mm512_maddubs_epi16(_mm512_set1_epi16((short)0x8001), x);
	return _mm512_madd_epi16(x, _mm512_set1_epi32(0x40000001));
}

static inline TARGET_AVX512 __m512i squeeze_avx512(__m512i x)
{
	SQUEEZE(__m512i, x, _mm512_and_si512, _mm512_or_si512, _mm512_sub_epi64, _mm512_srli_epi64,
		_mm512_maddubs_epi16, _mm512_madd_epi16, S512);
	return x;
}

static inline TARGET_AVX512 void decode_block_avx512(const uint8_t *q, uint64_t t, size_t take,
							 uint64_t *out)
{
	const __m512i iota = _mm512_set_epi64(0x3f3e3d3c3b3a3938, 0x3736353433323130, 0x2f2e2d2c2b2a2928,
					      0x2726252423222120, 0x1f1e1d1c1b1a1918, 0x1716151413121110,
					      0x0f0e0d0c0b0a0908, 0x0706050403020100);
	/* Lane j of a group takes varint 8g + j: its bytes are start + 0..7. */
	const __m512i lane = _mm512_set_epi64(0x0707070707070707, 0x0606060606060606, 0x0505050505050505,
					      0x0404040404040404, 0x0303030303030303, 0x0202020202020202,
					      0x0101010101010101, 0x0000000000000000);
	const __m512i byte = S512(0x0706050403020100);
	__m512i blk = _mm512_loadu_si512((const void *)q);
	/* Starts and ends of the block's varints, in order, one per byte. */
	__m512i starts = _mm512_maskz_compress_epi8(t << 1 | 1, iota);
	__m512i ends = _mm512_maskz_compress_epi8(t, iota);
	for (size_t g = 0; g * 8 < take; g++) {
		__m512i sel = _mm512_add_epi8(lane, _mm512_set1_epi8((char)(8 * g)));
		__m512i idx = _mm512_add_epi8(_mm512_permutexvar_epi8(sel, starts), byte);
		__mmask64 keep = _mm512_cmple_epu8_mask(idx, _mm512_permutexvar_epi8(sel, ends));
		__m512i x = _mm512_maskz_permutexvar_epi8(keep, idx, blk);
		size_t r = take - g * 8;
		_mm512_mask_storeu_epi64(out + g * 8, (__mmask8)(r >= 8 ? 0xff : (1u << r) - 1), squeeze_avx512(x));
	}
}

static inline TARGET_AVX512 void decode_block32_avx512(const uint8_t *q, uint64_t t, size_t take,
							   uint32_t *out)
{
	const __m512i iota = _mm512_set_epi64(0x3f3e3d3c3b3a3938, 0x3736353433323130, 0x2f2e2d2c2b2a2928,
					      0x2726252423222120, 0x1f1e1d1c1b1a1918, 0x1716151413121110,
					      0x0f0e0d0c0b0a0908, 0x0706050403020100);
	/* Lane j of a group takes varint 16g + j: its bytes are start + 0..3. */
	const __m512i lane = _mm512_set_epi32(0x0f0f0f0f, 0x0e0e0e0e, 0x0d0d0d0d, 0x0c0c0c0c, 0x0b0b0b0b,
					      0x0a0a0a0a, 0x09090909, 0x08080808, 0x07070707, 0x06060606,
					      0x05050505, 0x04040404, 0x03030303, 0x02020202, 0x01010101,
					      0x00000000);
	const __m512i byte = _mm512_set1_epi32(0x03020100);
	const __m512i low = _mm512_set1_epi32(0xff);
	__m512i blk = _mm512_loadu_si512((const void *)q);
	__m512i starts = _mm512_maskz_compress_epi8(t << 1 | 1, iota);
	__m512i ends = _mm512_maskz_compress_epi8(t, iota);
	for (size_t g = 0; g * 16 < take; g++) {
		__m512i sel = _mm512_add_epi8(lane, _mm512_set1_epi8((char)(16 * g)));
		__m512i st = _mm512_permutexvar_epi8(sel, starts), en = _mm512_permutexvar_epi8(sel, ends);
		__m512i idx = _mm512_add_epi8(st, byte);
		__m512i x = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx, en), idx, blk);
		x = squeeze32_avx512(x);
		/* Five bytes or more (end - start >= 4): bytes 4 to 7 give bits
		 * 28 and up; the value fits if no more than 4 of them are set. */
		__mmask16 lng = _mm512_cmpgt_epu32_mask(_mm512_and_si512(_mm512_sub_epi8(en, st), low),
							_mm512_set1_epi32(3));
		if (lng) {
			__m512i idx2 = _mm512_add_epi8(st, _mm512_set1_epi32(0x07060504));
			__m512i y = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx2, en), idx2, blk);
			y = squeeze32_avx512(y);
			x = _mm512_mask_or_epi32(x, lng, x, _mm512_slli_epi32(y, 28));
			__mmask16 big = _mm512_mask_cmpgt_epu32_mask(lng, y, _mm512_set1_epi32(15));
			x = _mm512_mask_mov_epi32(x, big, _mm512_set1_epi32(-1));
		}
		size_t r = take - g * 16;
		_mm512_mask_storeu_epi32(out + g * 16, (__mmask16)(r >= 16 ? 0xffff : (1u << r) - 1), x);
	}
}

/* decode_block32 that also maps each value through the 64-entry table tab. */
static inline TARGET_AVX512 void decode_block32_lut_avx512(const uint8_t *q, uint64_t t, size_t take, uint32_t *out,
							   uint8_t *steps, __m512i tab)
{
	const __m512i iota = _mm512_set_epi64(0x3f3e3d3c3b3a3938, 0x3736353433323130, 0x2f2e2d2c2b2a2928,
					      0x2726252423222120, 0x1f1e1d1c1b1a1918, 0x1716151413121110,
					      0x0f0e0d0c0b0a0908, 0x0706050403020100);
	const __m512i lane = _mm512_set_epi32(0x0f0f0f0f, 0x0e0e0e0e, 0x0d0d0d0d, 0x0c0c0c0c, 0x0b0b0b0b,
					      0x0a0a0a0a, 0x09090909, 0x08080808, 0x07070707, 0x06060606,
					      0x05050505, 0x04040404, 0x03030303, 0x02020202, 0x01010101,
					      0x00000000);
	const __m512i byte = _mm512_set1_epi32(0x03020100);
	const __m512i low = _mm512_set1_epi32(0xff);
	const __m512i c64 = _mm512_set1_epi8(64);
	__m512i blk = _mm512_loadu_si512((const void *)q);
	__m512i starts = _mm512_maskz_compress_epi8(t << 1 | 1, iota);
	__m512i ends = _mm512_maskz_compress_epi8(t, iota);
	/* A value below 64 is a varint of one byte below 64, unless a longer
	 * one ends in a zero byte (an overlong one): the table takes the
	 * first byte of each varint, all of the block's at once, if none does. */
	const int overlong = (_mm512_test_epi8_mask(blk, blk) | ~(~t << 1) | ~t) != ~UINT64_C(0);
	if (!overlong) {
		__m512i first = _mm512_permutexvar_epi8(starts, blk);
		_mm512_mask_storeu_epi8(steps, take >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << take) - 1,
					_mm512_maskz_permutexvar_epi8(_mm512_cmplt_epu8_mask(first, c64), first, tab));
	}
	for (size_t g = 0; g * 16 < take; g++) {
		__m512i sel = _mm512_add_epi8(lane, _mm512_set1_epi8((char)(16 * g)));
		__m512i st = _mm512_permutexvar_epi8(sel, starts), en = _mm512_permutexvar_epi8(sel, ends);
		__m512i idx = _mm512_add_epi8(st, byte);
		__m512i x = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx, en), idx, blk);
		x = squeeze32_avx512(x);
		__mmask16 lng = _mm512_cmpgt_epu32_mask(_mm512_and_si512(_mm512_sub_epi8(en, st), low),
							_mm512_set1_epi32(3));
		if (lng) {
			__m512i idx2 = _mm512_add_epi8(st, _mm512_set1_epi32(0x07060504));
			__m512i y = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx2, en), idx2, blk);
			y = squeeze32_avx512(y);
			x = _mm512_mask_or_epi32(x, lng, x, _mm512_slli_epi32(y, 28));
			__mmask16 big = _mm512_mask_cmpgt_epu32_mask(lng, y, _mm512_set1_epi32(15));
			x = _mm512_mask_mov_epi32(x, big, _mm512_set1_epi32(-1));
		}
		size_t r = take - g * 16;
		__mmask16 keep = (__mmask16)(r >= 16 ? 0xffff : (1u << r) - 1);
		_mm512_mask_storeu_epi32(out + g * 16, keep, x);
		if (overlong) {
			__mmask16 small = _mm512_cmplt_epu32_mask(x, _mm512_set1_epi32(64));
			__m512i b = _mm512_castsi128_si512(_mm512_cvtepi32_epi8(x));
			_mm512_mask_storeu_epi8(steps + g * 16, keep, _mm512_maskz_permutexvar_epi8((__mmask64)small, b, tab));
		}
	}
}

TARGET_AVX512 ptrdiff_t gtr_uvarint_decode32_lut_avx512(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
							const uint8_t lut[64], uint32_t *out, uint8_t *steps,
							size_t *used)
{
	const __m512i tab = _mm512_loadu_si512((const void *)lut);
	const uint8_t *q = p;
	size_t n = 0;
	while (end - q >= GTR_PAD && q < lim) {
		uint64_t c = cont64_avx512(q), t = ~c & below((unsigned)(lim - q < 64 ? lim - q : 64));
		if (t == 0)
			break; /* nothing ends before lim here, or a run of 64: the reference says */
		unsigned span = 64 - (unsigned)__builtin_clzll(t);
		size_t take = (size_t)__builtin_popcountll(t);
		uint64_t bad = runs8(c) & below(span);
		if (bad) {
			/* A varint of 9 bytes or more: the block takes those
			 * before it, the reference that one (it ends before
			 * lim, at the first end in t). */
			take = (size_t)__builtin_popcountll(t & below((unsigned)__builtin_ctzll(bad)));
			if (take == 0) {
				size_t u;
				ptrdiff_t r = gtr_uvarint_decode32_lut_scalar(q, q + __builtin_ctzll(t) + 1, end, lut,
									     out + n, steps + n, &u);
				if (r < 0)
					return r;
				n += (size_t)r;
				q += u;
				continue;
			}
			span = select_avx512(t, take) + 1;
		}
		decode_block32_lut_avx512(q, t, take, out + n, steps + n, tab);
		n += take;
		q += span;
	}
	size_t u;
	ptrdiff_t r = gtr_uvarint_decode32_lut_scalar(q, lim, end, lut, out + n, steps + n, &u);
	if (r < 0)
		return r;
	*used = (size_t)(q - p) + u;
	return (ptrdiff_t)n + r;
}

TARGET_AVX512 void gtr_lut64_u32_avx512(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out)
{
	const __m512i tab = _mm512_loadu_si512((const void *)lut);
	const __m512i c64 = _mm512_set1_epi32(64);
	for (size_t i = 0; i < n; i += 16) {
		size_t r = n - i < 16 ? n - i : 16;
		__mmask16 in = (__mmask16)(r == 16 ? 0xffff : (1u << r) - 1);
		__m512i x = _mm512_maskz_loadu_epi32(in, v + i);
		__mmask16 small = _mm512_cmplt_epu32_mask(x, c64);
		__m512i b = _mm512_castsi128_si512(_mm512_cvtepi32_epi8(x));
		__m512i y = _mm512_maskz_permutexvar_epi8((__mmask64)small, b, tab);
		_mm512_mask_storeu_epi8(out + i, (__mmask64)in, y);
	}
}

/* Whether the 128 bits (lo, hi) hold 8 set bits in a row (any such run
 * lies within one of three overlapping words). */
static inline uint64_t runs8_128(uint64_t lo, uint64_t hi)
{
	return runs8(lo) | runs8(lo >> 32 | hi << 32) | runs8(hi);
}

TARGET_AVX512 void gtr_record_lens_avx512(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
					  uint8_t *out)
{
	const __m512i iota = _mm512_set_epi64(0x3f3e3d3c3b3a3938, 0x3736353433323130, 0x2f2e2d2c2b2a2928,
					      0x2726252423222120, 0x1f1e1d1c1b1a1918, 0x1716151413121110,
					      0x0f0e0d0c0b0a0908, 0x0706050403020100);
	const __m512i one = _mm512_set1_epi8(1);
	/* Byte 0 of each qword into all of its bytes. */
	const __m512i bcast = _mm512_set4_epi32(0x08080808, 0x08080808, 0x00000000, 0x00000000);
	/* Byte k of a qword into all of qword k's bytes; the bits up to each
	 * byte's place in its qword; the bits below each qword. */
	const __m512i qbyte = _mm512_set_epi64(0x0707070707070707, 0x0606060606060606, 0x0505050505050505,
					       0x0404040404040404, 0x0303030303030303, 0x0202020202020202,
					       0x0101010101010101, 0);
	const __m512i upto = _mm512_set1_epi64((long long)UINT64_C(0xff7f3f1f0f070301));
	const __m512i belowq = _mm512_set_epi64(0x00ffffffffffffff, 0x0000ffffffffffff, 0x000000ffffffffff,
						0x00000000ffffffff, 0x0000000000ffffff, 0x000000000000ffff,
						0x00000000000000ff, 0);
	const __m512i t0 = _mm512_loadu_si512((const void *)nvals), t1 = _mm512_loadu_si512((const void *)(nvals + 64)),
		      t2 = _mm512_loadu_si512((const void *)(nvals + 128)),
		      t3 = _mm512_loadu_si512((const void *)(nvals + 192));
	for (size_t i = 0; i < n; i += 64) {
		const uint8_t *q = p + i;
		const size_t left = n - i, cnt = left < 64 ? left : 64;
		const size_t room = (size_t)(end - q), valid = room < 128 ? room : 128;
		const uint64_t v0 = valid >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << valid) - 1;
		const uint64_t v1 = valid >= 128 ? ~UINT64_C(0) : valid > 64 ? (UINT64_C(1) << (valid - 64)) - 1 : 0;
		const __m512i b0 = _mm512_maskz_loadu_epi8(v0, q), b1 = _mm512_maskz_loadu_epi8(v1, q + 64);
		const uint64_t c0 = _mm512_movepi8_mask(b0), c1 = _mm512_movepi8_mask(b1);
		if (runs8_128(c0, c1)) {
			/* A varint of 9 bytes or more nearby: the reference says what it is. */
			gtr_record_lens_scalar(q, cnt, end, nvals, out + i);
			continue;
		}
		const uint64_t e0 = ~c0 & v0, e1 = ~c1 & v1;
		const unsigned n0 = (unsigned)__builtin_popcountll(e0), nt = n0 + (unsigned)__builtin_popcountll(e1);
		/* Where varints end, in order, over the 128 bytes. */
		const __m512i ends0 = _mm512_maskz_compress_epi8(e0, iota);
		const __m512i ends1 = _mm512_maskz_compress_epi8(e1, _mm512_add_epi8(iota, _mm512_set1_epi8(64)));
		/* rank[i]: the varint ends at or before byte i, counted as
		 * those up to i in its qword's byte of e0 and those in the
		 * qwords before. */
		const __m512i e = _mm512_set1_epi64((long long)e0);
		const __m512i in_q = _mm512_popcnt_epi8(_mm512_and_si512(_mm512_shuffle_epi8(e, qbyte), upto));
		const __m512i before = _mm512_popcnt_epi64(_mm512_and_si512(e, belowq));
		const __m512i rank = _mm512_add_epi8(in_q, _mm512_shuffle_epi8(before, bcast));
		/* Each tag's count of values. */
		const __m512i lo = _mm512_permutex2var_epi8(t0, b0, t1), hi = _mm512_permutex2var_epi8(t2, b0, t3);
		const __m512i nv = _mm512_mask_blend_epi8(c0, lo, hi);
		/* A counted record ends at the (rank + n)-th end. */
		const __m512i at = _mm512_add_epi8(rank, _mm512_sub_epi8(nv, one));
		const __mmask64 in0 = _mm512_cmplt_epu8_mask(at, _mm512_set1_epi8((char)n0));
		const __m512i sel = _mm512_mask_add_epi8(at, ~in0, at, _mm512_set1_epi8((char)(64 - n0)));
		const __m512i lc = _mm512_add_epi8(_mm512_sub_epi8(_mm512_permutex2var_epi8(ends0, sel, ends1), iota), one);
		const __mmask64 counted = _mm512_cmpge_epu8_mask(nv, one) &
					  _mm512_cmple_epu8_mask(nv, _mm512_set1_epi8(GTR_LENS_MAXVALS)) &
					  _mm512_cmplt_epu8_mask(at, _mm512_set1_epi8((char)nt)) &
					  _mm512_cmple_epu8_mask(lc, _mm512_set1_epi8(GTR_LENS_MAX));
		/* A list: a one-byte length of 1 to 62 and that many bytes, in room. */
		const __m512i next = _mm512_permutex2var_epi8(b0, _mm512_add_epi8(iota, one), b1);
		const __m512i ll = _mm512_add_epi8(next, _mm512_set1_epi8(2));
		const __mmask64 list = _mm512_cmpeq_epi8_mask(nv, _mm512_set1_epi8((char)GTR_WALK_LIST)) &
				       _mm512_cmplt_epu8_mask(_mm512_sub_epi8(next, one), _mm512_set1_epi8(GTR_LENS_MAX - 2)) &
				       _mm512_cmple_epu8_mask(_mm512_add_epi8(iota, ll), _mm512_set1_epi8((char)valid));
		const __m512i len = _mm512_mask_blend_epi8(list, _mm512_maskz_mov_epi8(counted, lc), ll);
		_mm512_mask_storeu_epi8(out + i, cnt == 64 ? ~UINT64_C(0) : (UINT64_C(1) << cnt) - 1, len);
	}
}

static inline TARGET_AVX512 unsigned select16_avx512(uint32_t m, unsigned n)
{
	return (unsigned)_tzcnt_u32((uint32_t)_pdep_u64(UINT64_C(1) << (n - 1), m) | 0x10000);
}

static inline TARGET_AVX512 uint64_t value8_avx512(uint64_t x, unsigned bit)
{
	return _pext_u64(_bzhi_u64(x, bit + 1), UINT64_C(0x7f7f7f7f7f7f7f7f));
}

#define ISA avx512
#define ISA_TARGET TARGET_AVX512
#define ISA_WINDOW (~UINT64_C(0))
#define ISA_WINDOW32 (~UINT64_C(0))
#define ISA_OWN32
#define ISA_LENS
#include "uvarint_body.h"
#undef ISA
#undef ISA_TARGET
#undef ISA_WINDOW
#undef ISA_WINDOW32
#undef ISA_OWN32
#undef ISA_LENS

#endif
