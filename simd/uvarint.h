/*
 * simd/uvarint.h: unsigned LEB128 ("uvarint") decoding kernels.
 *
 * Pure functions over byte buffers: no allocation, no threads, no I/O.
 * The scalar kernel is the reference; every other path must agree with
 * it byte for byte. Kernels never read past `end`: callers hand in the
 * real end of their buffer, and the bulk paths stop GTR_PAD bytes short
 * of it so that the tail is always finished by scalar code.
 */
#ifndef GTR_SIMD_UVARINT_H
#define GTR_SIMD_UVARINT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Bytes a wide kernel looks at from its current position: the SIMD paths
 * work on GTR_PAD-byte blocks and take one only while at least GTR_PAD
 * bytes remain before `end`; the rest is finished by the scalar code.
 * Callers need no padding after their data.
 */
#define GTR_PAD 64

/* Longest valid encoding of a 64-bit value. */
#define GTR_UVARINT_MAX 10

/* Status of one decode: > 0 is the number of bytes consumed. */
enum {
	GTR_UVARINT_SHORT = 0,     /* the buffer ends inside the varint */
	GTR_UVARINT_OVERFLOW = -1, /* longer than 10 bytes or > 64 bits */
};

/*
 * Decodes one uvarint at p, never reading at or past end. Returns the
 * number of bytes consumed (1..10), GTR_UVARINT_SHORT or
 * GTR_UVARINT_OVERFLOW. *v is written only on success.
 */
static inline int gtr_uvarint_decode(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	int shift = 0;
	for (int i = 0; i < GTR_UVARINT_MAX; i++) {
		if (p + i >= end)
			return GTR_UVARINT_SHORT;
		uint8_t b = p[i];
		if (i == GTR_UVARINT_MAX - 1 && b > 1)
			return GTR_UVARINT_OVERFLOW;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			return i + 1;
		}
		shift += 7;
	}
	return GTR_UVARINT_OVERFLOW;
}

/*
 * gtr_uvarint_decode stepping a cursor: decodes the uvarint at *pp into
 * *v and moves *pp past it; returns 0, or -1 (*pp unmoved) as that says.
 * One-byte values, most of a trace's, take no loop.
 */
static inline int gtr_uvarint_next(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	if (p < end && p[0] < 0x80) {
		*v = p[0];
		*pp = p + 1;
		return 0;
	}
	int k = gtr_uvarint_decode(p, end, v);
	if (k <= 0)
		return -1;
	*pp = p + k;
	return 0;
}

/*
 * Word-at-a-time helpers for walks that decode a few varints in place,
 * with no SIMD and no BMI2: the caller makes sure 8 bytes can be read.
 */
static inline uint64_t gtr_load64(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

/* Bit 8j + 7 set where byte j of x (loaded with gtr_load64) ends a varint. */
static inline uint64_t gtr_uvarint_ends8(uint64_t x)
{
	return ~x & UINT64_C(0x8080808080808080);
}

/* The low 7 bits of each of 8 bytes, packed: the value of a varint of up to 8 bytes. */
static inline uint64_t gtr_uvarint_squeeze8(uint64_t x)
{
	x &= UINT64_C(0x7f7f7f7f7f7f7f7f);
	x = (x & UINT64_C(0x007f007f007f007f)) | ((x >> 1) & UINT64_C(0x3f803f803f803f80));
	x = (x & UINT64_C(0x00003fff00003fff)) | ((x >> 2) & UINT64_C(0x0fffc0000fffc000));
	return (x & UINT64_C(0x000000000fffffff)) | ((x >> 4) & UINT64_C(0x00fffffff0000000));
}

/*
 * The value of the varint at the start of x whose last byte's flag is
 * bit `bit` (7, 15, ..., 63: the lowest bit of gtr_uvarint_ends8(x)).
 */
static inline uint64_t gtr_uvarint_value8(uint64_t x, unsigned bit)
{
	return gtr_uvarint_squeeze8(bit >= 63 ? x : x & ((UINT64_C(1) << (bit + 1)) - 1));
}

/*
 * Skips n uvarints starting at p without decoding them. Returns the
 * number of bytes skipped, or a negative GTR_UVARINT_* status (SHORT is
 * returned as -2 here so that 0 stays a valid length for n == 0).
 */
#define GTR_UVARINT_SKIP_SHORT (-2)
typedef ptrdiff_t (*gtr_uvarint_skip_fn)(const uint8_t *p, const uint8_t *end, size_t n);

/* Decodes up to n uvarints into out; same contract as the skip kernel. */
typedef ptrdiff_t (*gtr_uvarint_decode_n_fn)(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n);

/*
 * Decodes up to n uvarints into 32-bit values, with the decode kernel's
 * contract, but a value of 2^32 - 1 or more, which does not fit, is
 * written as GTR_UVARINT32_LONG (so the marker is never a value).
 */
#define GTR_UVARINT32_LONG UINT32_C(0xffffffff)
typedef ptrdiff_t (*gtr_uvarint_decode32_n_fn)(const uint8_t *p, const uint8_t *end, uint32_t *out,
					       size_t n);

/*
 * Maps n 32-bit values through a 64-entry byte table:
 * out[i] = v[i] < 64 ? lut[v[i]] : 0.
 */
typedef void (*gtr_lut64_u32_fn)(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out);

/*
 * The stage-1 scan of an index pass: marks where varints end. Bit i of
 * bits[i / 64] is set iff p[i] < 0x80, for every i < end - p; the unused
 * high bits of the last word are clear. `bits` must hold
 * (end - p + 63) / 64 words. Returns the number of bits set. A pass that
 * walks events can then find the end of the next k varints with a
 * popcount and a select on these words instead of a loop over bytes
 * (checking, as the kernels below do, that no run of 9 or more
 * continuation bytes hides an overlong varint).
 */
typedef size_t (*gtr_uvarint_marks_fn)(const uint8_t *p, const uint8_t *end, uint64_t *bits);

/*
 * The number of varint ends (bytes below 0x80) in [p, end): one plain
 * pass over the bytes, the floor that the walks' throughput is measured
 * against (bench/floor.c).
 */
typedef size_t (*gtr_uvarint_count_fn)(const uint8_t *p, const uint8_t *end);

/*
 * A walk over tagged records, the skeleton of an index pass: a record is
 * a tag byte, then either nvals[tag] uvarints (1 to GTR_WALK_MAXVALS) or,
 * when nvals[tag] is GTR_WALK_LIST, a uvarint byte length and a list of
 * that many bytes. A record's first value (the list's first, for a list)
 * is a delta: the walk adds it to `sum` and keeps the least and greatest
 * sum seen; it also counts records and their bytes by tag.
 *
 * The walk takes only simple records, and stops before the first that is
 * not: nvals[tag] == 0; a value it needs of more than 8 bytes; values (or
 * the length and first value of a list) not all ending within the
 * GTR_WALK_SPAN bytes after the tag; a list that is empty, whose first
 * value does not end inside it, or that runs past `end`; or a record that
 * starts less than GTR_PAD bytes before `end`. Inline values past the
 * first are only stepped over, never decoded; a list's bytes past its
 * first value are not looked at. What the walk leaves (including every
 * malformed varint) is for the caller's own checked decoder.
 */
#define GTR_WALK_MAXVALS 4
#define GTR_WALK_LIST 0xff
#define GTR_WALK_SPAN 16

typedef struct gtr_walk_sums {
	uint64_t count[256]; /* records walked, by tag byte */
	uint64_t bytes[256]; /* and their encoded bytes, tag included */
	uint64_t sum;        /* running sum of the first values */
	uint64_t min, max;   /* least and greatest `sum` after a record */
} gtr_walk_sums;

/*
 * Walks from p and returns the number of bytes walked (whole records);
 * *nrec receives the number of records. Only `sums` is written.
 */
typedef size_t (*gtr_uvarint_walk_fn)(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
				      gtr_walk_sums *sums, size_t *nrec);

/*
 * decode32_n and lut64 at once, over the varints from p that end before
 * lim (one cut by lim is left for the next call): out[i] is the i-th
 * value as decode32_n writes it, steps[i] lut64's byte for it. Reads
 * [p, end), end >= lim. Returns the number of varints, *used the bytes
 * they take; or, at the first bad varint, decode32_n's negative status
 * (out and steps then hold those before it).
 */
typedef ptrdiff_t (*gtr_uvarint_decode32_lut_fn)(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
						 const uint8_t lut[64], uint32_t *out, uint8_t *steps,
						 size_t *used);

/*
 * Record lengths, for a walk that steps from record to record with one
 * load: out[i] is the length of the record that would start at p[i], for
 * i < n, or 0. A record is a tag byte and, as nvals[tag] says, that many
 * uvarints (1 to GTR_LENS_MAXVALS), or (GTR_WALK_LIST) a one-byte length
 * of 1 or more and that many bytes. out[i] is 0 when nvals[tag] is 0, when
 * the record does not end before `end` or within GTR_LENS_MAX bytes of
 * p[i], and when its bytes hold 8 continuation bytes in a row (a varint
 * of 9 bytes or more): in every record it gives, each varint can be read
 * with one 8-byte load. Reads [p, end) only; n <= end - p.
 */
#define GTR_LENS_MAX 64
#define GTR_LENS_MAXVALS 6
typedef void (*gtr_record_lens_fn)(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
				   uint8_t *out);

/*
 * The scalar references. The SIMD paths (simd/uvarint_x86.c) return
 * exactly what these return for every input, including which error and,
 * for decode_n, which prefix of `out` was written before it: out[i] is
 * written for each varint i that decoded, and nothing past the first
 * that failed.
 */
ptrdiff_t gtr_uvarint_skip_scalar(const uint8_t *p, const uint8_t *end, size_t n);
ptrdiff_t gtr_uvarint_decode_n_scalar(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n);
ptrdiff_t gtr_uvarint_decode32_n_scalar(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t n);
void gtr_lut64_u32_scalar(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out);
ptrdiff_t gtr_uvarint_decode32_lut_scalar(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					  const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used);
size_t gtr_uvarint_marks_scalar(const uint8_t *p, const uint8_t *end, uint64_t *bits);
size_t gtr_uvarint_count_scalar(const uint8_t *p, const uint8_t *end);
size_t gtr_uvarint_walk_scalar(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			       gtr_walk_sums *sums, size_t *nrec);
void gtr_record_lens_scalar(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
			    uint8_t *out);

#endif
