/*
 * simd/isa.h: the table of kernels, chosen once at start-up.
 *
 * The choice lives in a gtr_kernels value that the caller owns and
 * passes down; there is no global. GTR_ISA=scalar|sse4|avx2|avx512|neon
 * forces a path (for tests and benchmarks); a forced path the CPU
 * cannot run is refused rather than silently replaced. The x86 ISAs are
 * in order, each a superset of the one before; neon is arm64's.
 */
#ifndef GTR_SIMD_ISA_H
#define GTR_SIMD_ISA_H

#include "uvarint.h"

typedef enum gtr_isa {
	GTR_ISA_SCALAR = 0,
	GTR_ISA_SSE4,
	GTR_ISA_AVX2,
	GTR_ISA_AVX512,
	GTR_ISA_NEON,
	GTR_ISA_COUNT
} gtr_isa;

typedef struct gtr_kernels {
	gtr_isa isa;
	gtr_uvarint_skip_fn uvarint_skip;
	gtr_uvarint_decode_n_fn uvarint_decode_n;
	gtr_uvarint_decode32_n_fn uvarint_decode32_n;
	gtr_lut64_u32_fn lut64_u32;
	gtr_uvarint_decode32_lut_fn uvarint_decode32_lut;
	gtr_record_lens_fn record_lens;
	gtr_uvarint_marks_fn uvarint_marks;
	gtr_uvarint_count_fn uvarint_count;
	gtr_uvarint_walk_fn uvarint_walk;
} gtr_kernels;

/* Name of an ISA as GTR_ISA spells it. */
const char *gtr_isa_name(gtr_isa isa);

/*
 * Best ISA that both the CPU and the OS support (cpuid and XCR0):
 *   sse4    SSE4.1 and POPCNT
 *   avx2    AVX2, BMI1 and BMI2, with YMM state saved by the OS
 *   avx512  AVX-512 F, BW, VBMI, VBMI2, BITALG and VPOPCNTDQ, BMI1 and BMI2, with ZMM state
 *           saved by the OS
 *   neon    every arm64 CPU
 */
gtr_isa gtr_isa_detect(void);

/*
 * Fills *k for the ISA named by `force` (NULL or "" means the best one
 * detected). Returns 0, or -1 when `force` names an unknown ISA or one
 * this machine cannot run.
 */
int gtr_kernels_init(gtr_kernels *k, const char *force);

#endif
