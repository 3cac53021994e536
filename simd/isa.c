/* simd/isa.c: CPU feature detection and kernel dispatch. */
#include "isa.h"
#include "uvarint_neon.h"
#include "uvarint_x86.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

gtr_isa gtr_isa_detect(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return GTR_ISA_SCALAR;
	int sse41 = (c >> 19) & 1, popcnt = (c >> 23) & 1;
	int osxsave = (c >> 27) & 1;
	int avx = (c >> 28) & 1;
	if (!sse41 || !popcnt)
		return GTR_ISA_SCALAR;
	/* Wide registers are usable only if the OS saves them (XCR0). */
	uint64_t xcr0 = osxsave ? xgetbv0() : 0;
	int ymm_ok = avx && (xcr0 & 0x6) == 0x6;
	int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return GTR_ISA_SSE4;
	int bmi1 = (b >> 3) & 1, avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
	int avx512f = (b >> 16) & 1, avx512bw = (b >> 30) & 1;
	int vbmi = (c >> 1) & 1, vbmi2 = (c >> 6) & 1, bitalg = (c >> 12) & 1, vpopcntdq = (c >> 14) & 1;
	/* The AVX-512 kernels permute, compress and count bits of bytes:
	 * VBMI, VBMI2, BITALG and VPOPCNTDQ (Ice Lake, Zen 4 and later).
	 * Skylake-X gets the AVX2 ones. */
	if (zmm_ok && avx512f && avx512bw && vbmi && vbmi2 && bitalg && vpopcntdq && bmi1 && bmi2)
		return GTR_ISA_AVX512;
	if (ymm_ok && avx2 && bmi1 && bmi2)
		return GTR_ISA_AVX2;
	return GTR_ISA_SSE4;
}
#elif defined(__aarch64__)
gtr_isa gtr_isa_detect(void)
{
	return GTR_ISA_NEON; /* part of every AArch64 CPU */
}
#else
gtr_isa gtr_isa_detect(void)
{
	return GTR_ISA_SCALAR;
}
#endif

static const char *const isa_names[GTR_ISA_COUNT] = {"scalar", "sse4", "avx2", "avx512", "neon"};

/* Whether this machine runs `isa`, its best being `best`: scalar always;
 * an x86 one up to the best (each x86 ISA takes in the ones before). */
static int runs(gtr_isa isa, gtr_isa best)
{
	if (isa == GTR_ISA_SCALAR || isa == best)
		return 1;
	return isa < GTR_ISA_NEON && best < GTR_ISA_NEON && isa < best;
}

const char *gtr_isa_name(gtr_isa isa)
{
	return (unsigned)isa < GTR_ISA_COUNT ? isa_names[isa] : "?";
}

int gtr_kernels_init(gtr_kernels *k, const char *force)
{
	gtr_isa best = gtr_isa_detect();
	gtr_isa want = best;
	if (force && *force) {
		int found = 0;
		for (int i = 0; i < GTR_ISA_COUNT; i++) {
			if (strcmp(force, isa_names[i]) == 0) {
				want = (gtr_isa)i;
				found = 1;
			}
		}
		if (!found || !runs(want, best))
			return -1;
	}
	k->isa = want;
	k->uvarint_skip = gtr_uvarint_skip_scalar;
	k->uvarint_decode_n = gtr_uvarint_decode_n_scalar;
	k->uvarint_decode32_n = gtr_uvarint_decode32_n_scalar;
	k->lut64_u32 = gtr_lut64_u32_scalar;
	k->uvarint_decode32_lut = gtr_uvarint_decode32_lut_scalar;
	k->record_lens = gtr_record_lens_scalar;
	k->uvarint_marks = gtr_uvarint_marks_scalar;
	k->uvarint_count = gtr_uvarint_count_scalar;
	k->uvarint_walk = gtr_uvarint_walk_scalar;
#ifdef GTR_HAVE_X86_KERNELS
	switch (want) {
	case GTR_ISA_SSE4:
		k->uvarint_skip = gtr_uvarint_skip_sse4;
		k->uvarint_decode_n = gtr_uvarint_decode_n_sse4;
		k->uvarint_decode32_n = gtr_uvarint_decode32_n_sse4;
		k->lut64_u32 = gtr_lut64_u32_sse4;
		k->uvarint_decode32_lut = gtr_uvarint_decode32_lut_sse4;
		k->record_lens = gtr_record_lens_sse4;
		k->uvarint_marks = gtr_uvarint_marks_sse4;
		k->uvarint_count = gtr_uvarint_count_sse4;
		k->uvarint_walk = gtr_uvarint_walk_sse4;
		break;
	case GTR_ISA_AVX2:
		k->uvarint_skip = gtr_uvarint_skip_avx2;
		k->uvarint_decode_n = gtr_uvarint_decode_n_avx2;
		k->uvarint_decode32_n = gtr_uvarint_decode32_n_avx2;
		k->lut64_u32 = gtr_lut64_u32_avx2;
		k->uvarint_decode32_lut = gtr_uvarint_decode32_lut_avx2;
		k->record_lens = gtr_record_lens_avx2;
		k->uvarint_marks = gtr_uvarint_marks_avx2;
		k->uvarint_count = gtr_uvarint_count_avx2;
		k->uvarint_walk = gtr_uvarint_walk_avx2;
		break;
	case GTR_ISA_AVX512:
		k->uvarint_skip = gtr_uvarint_skip_avx512;
		k->uvarint_decode_n = gtr_uvarint_decode_n_avx512;
		k->uvarint_decode32_n = gtr_uvarint_decode32_n_avx512;
		k->lut64_u32 = gtr_lut64_u32_avx512;
		k->uvarint_decode32_lut = gtr_uvarint_decode32_lut_avx512;
		k->record_lens = gtr_record_lens_avx512;
		k->uvarint_marks = gtr_uvarint_marks_avx512;
		k->uvarint_count = gtr_uvarint_count_avx512;
		k->uvarint_walk = gtr_uvarint_walk_avx512;
		break;
	default:
		break;
	}
#endif
#ifdef GTR_HAVE_NEON_KERNELS
	if (want == GTR_ISA_NEON) {
		k->lut64_u32 = gtr_lut64_u32_neon;
		k->uvarint_decode32_lut = gtr_uvarint_decode32_lut_neon;
		k->record_lens = gtr_record_lens_neon;
		k->uvarint_marks = gtr_uvarint_marks_neon;
		k->uvarint_count = gtr_uvarint_count_neon;
	}
#endif
	return 0;
}
