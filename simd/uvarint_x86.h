/*
 * simd/uvarint_x86.h: the x86 kernels behind the table in simd/isa.h.
 *
 * Private to simd/: callers take kernels from a gtr_kernels filled by
 * gtr_kernels_init, which checks that the CPU and the OS can run them.
 * Calling one of these on a CPU without its instructions is undefined
 * (SIGILL). Each has the contract of its scalar reference in uvarint.h.
 */
#ifndef GTR_SIMD_UVARINT_X86_H
#define GTR_SIMD_UVARINT_X86_H

#include "uvarint.h"

#if defined(__x86_64__) || defined(__i386__)
#define GTR_HAVE_X86_KERNELS 1

/* SSE4.1 + POPCNT: 16-byte compares. */
ptrdiff_t gtr_uvarint_skip_sse4(const uint8_t *p, const uint8_t *end, size_t n);
ptrdiff_t gtr_uvarint_decode_n_sse4(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n);
ptrdiff_t gtr_uvarint_decode32_n_sse4(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t n);
void gtr_lut64_u32_sse4(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out);
ptrdiff_t gtr_uvarint_decode32_lut_sse4(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					 const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used);
size_t gtr_uvarint_marks_sse4(const uint8_t *p, const uint8_t *end, uint64_t *bits);
size_t gtr_uvarint_count_sse4(const uint8_t *p, const uint8_t *end);
void gtr_record_lens_sse4(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
			  uint8_t *out);
size_t gtr_uvarint_walk_sse4(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			     gtr_walk_sums *sums, size_t *nrec);

/* AVX2 + BMI1/2: 32-byte compares, four values per vector. */
ptrdiff_t gtr_uvarint_skip_avx2(const uint8_t *p, const uint8_t *end, size_t n);
ptrdiff_t gtr_uvarint_decode_n_avx2(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n);
ptrdiff_t gtr_uvarint_decode32_n_avx2(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t n);
void gtr_lut64_u32_avx2(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out);
ptrdiff_t gtr_uvarint_decode32_lut_avx2(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					 const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used);
size_t gtr_uvarint_marks_avx2(const uint8_t *p, const uint8_t *end, uint64_t *bits);
size_t gtr_uvarint_count_avx2(const uint8_t *p, const uint8_t *end);
void gtr_record_lens_avx2(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
			  uint8_t *out);
size_t gtr_uvarint_walk_avx2(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			     gtr_walk_sums *sums, size_t *nrec);

/* AVX-512 F/BW/VBMI/VBMI2/BITALG/VPOPCNTDQ + BMI1/2: 64-byte compares, byte permutes. */
ptrdiff_t gtr_uvarint_skip_avx512(const uint8_t *p, const uint8_t *end, size_t n);
ptrdiff_t gtr_uvarint_decode_n_avx512(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n);
ptrdiff_t gtr_uvarint_decode32_n_avx512(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t n);
void gtr_lut64_u32_avx512(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out);
ptrdiff_t gtr_uvarint_decode32_lut_avx512(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					 const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used);
size_t gtr_uvarint_marks_avx512(const uint8_t *p, const uint8_t *end, uint64_t *bits);
size_t gtr_uvarint_count_avx512(const uint8_t *p, const uint8_t *end);
void gtr_record_lens_avx512(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
			    uint8_t *out);
size_t gtr_uvarint_walk_avx512(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			     gtr_walk_sums *sums, size_t *nrec);
#endif

#endif
