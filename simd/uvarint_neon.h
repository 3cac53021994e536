/*
 * simd/uvarint_neon.h: the NEON kernels behind the table in simd/isa.h
 * (arm64). Private to simd/: callers take kernels from a gtr_kernels.
 * Each has the contract of its scalar reference in uvarint.h.
 */
#ifndef GTR_SIMD_UVARINT_NEON_H
#define GTR_SIMD_UVARINT_NEON_H

#include "uvarint.h"

#if defined(__aarch64__)
#define GTR_HAVE_NEON_KERNELS 1

size_t gtr_uvarint_marks_neon(const uint8_t *p, const uint8_t *end, uint64_t *bits);
size_t gtr_uvarint_count_neon(const uint8_t *p, const uint8_t *end);
void gtr_lut64_u32_neon(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out);
ptrdiff_t gtr_uvarint_decode32_lut_neon(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used);
void gtr_record_lens_neon(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
			  uint8_t *out);
#endif

#endif
