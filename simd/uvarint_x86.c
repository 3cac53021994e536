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
	__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define KERNEL(name) CAT(gtr_uvarint_##name, ISA)
#define PER_ISA(name) CAT(name, ISA)

/* The per-lane paths start an 8-byte load at most at byte 55 of a block. */
#define WINDOW_56 ((UINT64_C(1) << 56) - 1)

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

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

/* The low 7 bits of each of 8 bytes, packed: the value of a varint of up to 8 bytes. */
static inline uint64_t squeeze64(uint64_t x)
{
	x &= UINT64_C(0x7f7f7f7f7f7f7f7f);
	x = (x & UINT64_C(0x007f007f007f007f)) | ((x >> 1) & UINT64_C(0x3f803f803f803f80));
	x = (x & UINT64_C(0x00003fff00003fff)) | ((x >> 2) & UINT64_C(0x0fffc0000fffc000));
	return (x & UINT64_C(0x000000000fffffff)) | ((x >> 4) & UINT64_C(0x00fffffff0000000));
}

/*
 * The value of the varint in the low bytes of x (loaded from its first
 * byte) whose flag bit, that of its last byte, is bit `bit` (7, 15, ...
 * 63), without pext.
 */
static inline uint64_t value8_squeeze(uint64_t x, unsigned bit)
{
	return squeeze64(x & below(bit + 1));
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
 * into 14, 28 and 56 bits. Written once for each vector width.
 */
#define SQUEEZE(T, V, and, or, sub, srl, set1)                                        \
	do {                                                                           \
		T y_ = and(set1(0x8080808080808080), ~(V));                            \
		(V) = and(and((V), set1(0x7f7f7f7f7f7f7f7f)), y_ ^ sub(y_, set1(1)));  \
		(V) = or(and((V), set1(0x007f007f007f007f)),                           \
			 and(srl((V), 1), set1(0x3f803f803f803f80)));                  \
		(V) = or(and((V), set1(0x00003fff00003fff)),                           \
			 and(srl((V), 2), set1(0x0fffc0000fffc000)));                  \
		(V) = or(and((V), set1(0x000000000fffffff)),                           \
			 and(srl((V), 4), set1(0x00fffffff0000000)));                  \
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
	SQUEEZE(__m128i, x, _mm_and_si128, _mm_or_si128, _mm_sub_epi64, _mm_srli_epi64, S128);
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
		__m128i x = _mm_set_epi64x((long long)load64(q + s1), (long long)load64(q + s));
		_mm_storeu_si128((__m128i *)(out + j), squeeze_sse4(x));
		s = s2;
	}
	if (j < take)
		_mm_storel_epi64((__m128i *)(out + j), squeeze_sse4(_mm_cvtsi64_si128((long long)load64(q + s))));
}

static inline TARGET_SSE4 unsigned select16_sse4(uint32_t m, unsigned n)
{
	return select16_clear(m, n);
}

static inline TARGET_SSE4 uint64_t value8_sse4(uint64_t x, unsigned bit)
{
	return value8_squeeze(x, bit);
}

static inline TARGET_SSE4 unsigned select8_sse4(uint64_t x, unsigned n)
{
	return select8_clear(x, n);
}

#define ISA sse4
#define ISA_TARGET TARGET_SSE4
#define ISA_WINDOW WINDOW_56
#include "uvarint_body.h"
#undef ISA
#undef ISA_TARGET
#undef ISA_WINDOW

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
	SQUEEZE(__m256i, x, _mm256_and_si256, _mm256_or_si256, _mm256_sub_epi64, _mm256_srli_epi64, S256);
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
		__m256i x = _mm256_set_epi64x((long long)load64(q + s[3]), (long long)load64(q + s[2]),
					      (long long)load64(q + s[1]), (long long)load64(q + s[0]));
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
	__m256i x = _mm256_set_epi64x((long long)load64(q + s[3]), (long long)load64(q + s[2]),
				      (long long)load64(q + s[1]), (long long)load64(q + s[0]));
	__m256i keep = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)r), _mm256_set_epi64x(3, 2, 1, 0));
	_mm256_maskstore_epi64((long long *)(out + j), keep, squeeze_avx2(x));
}

static inline TARGET_AVX2 unsigned select16_avx2(uint32_t m, unsigned n)
{
	return select16_clear(m, n); /* no pdep, as in select_avx2 */
}

static inline TARGET_AVX2 uint64_t value8_avx2(uint64_t x, unsigned bit)
{
	return value8_squeeze(x, bit);
}

static inline TARGET_AVX2 unsigned select8_avx2(uint64_t x, unsigned n)
{
	return select8_clear(x, n);
}

#define ISA avx2
#define ISA_TARGET TARGET_AVX2
#define ISA_WINDOW WINDOW_56
#include "uvarint_body.h"
#undef ISA
#undef ISA_TARGET
#undef ISA_WINDOW

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

static inline TARGET_AVX512 __m512i squeeze_avx512(__m512i x)
{
	SQUEEZE(__m512i, x, _mm512_and_si512, _mm512_or_si512, _mm512_sub_epi64, _mm512_srli_epi64, S512);
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

static inline TARGET_AVX512 unsigned select16_avx512(uint32_t m, unsigned n)
{
	return (unsigned)_tzcnt_u32((uint32_t)_pdep_u64(UINT64_C(1) << (n - 1), m) | 0x10000);
}

static inline TARGET_AVX512 uint64_t value8_avx512(uint64_t x, unsigned bit)
{
	return _pext_u64(_bzhi_u64(x, bit + 1), UINT64_C(0x7f7f7f7f7f7f7f7f));
}

static inline TARGET_AVX512 unsigned select8_avx512(uint64_t x, unsigned n)
{
	return (unsigned)_tzcnt_u64(_pdep_u64(UINT64_C(1) << (n - 1), x));
}

#define ISA avx512
#define ISA_TARGET TARGET_AVX512
#define ISA_WINDOW (~UINT64_C(0))
#include "uvarint_body.h"
#undef ISA
#undef ISA_TARGET
#undef ISA_WINDOW

#endif
