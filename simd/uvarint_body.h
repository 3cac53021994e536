/*
 * simd/uvarint_body.h: the one body of the x86 uvarint kernels.
 *
 * Not a header to include anywhere else: simd/uvarint_x86.c includes it
 * once per ISA, after defining
 *   ISA          the suffix (sse4, avx2, avx512), pasted into every name;
 *   ISA_TARGET   the __attribute__((target(...))) of that ISA;
 *   ISA_WINDOW   the bytes of a block whose varint ends decode may use
 *                (the per-lane paths load 8 bytes at a varint's start, so
 *                they stop at byte 56 to stay inside the block);
 * and the per-ISA functions cont64_ISA (the continuation bits of 64 bytes),
 * select_ISA (the position of the k-th set bit) and decode_block_ISA
 * (values of `take` varints of at most 8 bytes).
 *
 * Every kernel works on GTR_PAD-byte blocks that start at a varint's
 * first byte, and only while a whole block lies before `end`. A call
 * for fewer than SMALL_N values (one event's arguments, typically), for
 * which a block costs more than it saves, goes straight to the scalar
 * reference, which is hard to beat there: most values in traces take
 * one byte, a branch it predicts well. A varint too long for the block
 * paths (9 or more bytes for decode, 10 or more for skip: valid or not)
 * is handed to the scalar reference too, as is the tail: every error is
 * thus found, and reported, by the reference itself, which is what
 * makes the results identical.
 */

/* The block loops, apart so that small calls pay for none of their registers. */
static __attribute__((noinline)) ISA_TARGET ptrdiff_t PER_ISA(skip_blocks)(const uint8_t *p,
									 const uint8_t *end, size_t n)
{
	const uint8_t *q = p;
	while (n >= SMALL_N && end - q >= GTR_PAD) {
		uint64_t c = PER_ISA(cont64)(q), t = ~c;
		if (t == 0)
			break; /* no varint ends in this block: the reference says how it fails */
		size_t k = (size_t)__builtin_popcountll(t), take = k < n ? k : n;
		unsigned span = take == k ? 64 - (unsigned)__builtin_clzll(t) : PER_ISA(select)(t, take) + 1;
		uint64_t bad = runs8(c) & (c >> 8) & below(span);
		if (bad) {
			/* A varint of 10 bytes or more, good or bad: skip the ones
			 * before it here, then let the reference take it. */
			take = (size_t)__builtin_popcountll(t & below((unsigned)__builtin_ctzll(bad)));
			if (take == 0) {
				ptrdiff_t s = gtr_uvarint_skip_scalar(q, end, 1);
				if (s < 0)
					return s;
				q += s;
				n--;
				continue;
			}
			span = PER_ISA(select)(t, take) + 1;
		}
		q += span;
		n -= take;
	}
	if (n == 0)
		return q - p;
	ptrdiff_t s = gtr_uvarint_skip_scalar(q, end, n);
	return s < 0 ? s : (q - p) + s;
}

ISA_TARGET ptrdiff_t KERNEL(skip)(const uint8_t *p, const uint8_t *end, size_t n)
{
	if (n < SMALL_N || end - p < GTR_PAD)
		return gtr_uvarint_skip_scalar(p, end, n);
	return PER_ISA(skip_blocks)(p, end, n);
}

static __attribute__((noinline)) ISA_TARGET ptrdiff_t PER_ISA(decode_blocks)(const uint8_t *p,
									   const uint8_t *end,
									   uint64_t *out, size_t n)
{
	const uint8_t *q = p;
	while (n >= SMALL_N && end - q >= GTR_PAD) {
		uint64_t c = PER_ISA(cont64)(q), t = ~c & ISA_WINDOW;
		if (t == 0)
			break;
		size_t k = (size_t)__builtin_popcountll(t), take = k < n ? k : n;
		unsigned span = take == k ? 64 - (unsigned)__builtin_clzll(t) : PER_ISA(select)(t, take) + 1;
		uint64_t bad = runs8(c) & below(span);
		if (bad) {
			/* A varint of 9 bytes or more, too long for a lane: decode
			 * the ones before it here, then let the reference take it. */
			take = (size_t)__builtin_popcountll(t & below((unsigned)__builtin_ctzll(bad)));
			if (take == 0) {
				ptrdiff_t s = gtr_uvarint_decode_n_scalar(q, end, out, 1);
				if (s < 0)
					return s;
				q += s;
				out++;
				n--;
				continue;
			}
			span = PER_ISA(select)(t, take) + 1;
		}
		PER_ISA(decode_block)(q, t, take, out);
		q += span;
		out += take;
		n -= take;
	}
	if (n == 0)
		return q - p;
	ptrdiff_t s = gtr_uvarint_decode_n_scalar(q, end, out, n);
	return s < 0 ? s : (q - p) + s;
}

ISA_TARGET ptrdiff_t KERNEL(decode_n)(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n)
{
	if (n < SMALL_N || end - p < GTR_PAD)
		return gtr_uvarint_decode_n_scalar(p, end, out, n);
	return PER_ISA(decode_blocks)(p, end, out, n);
}

ISA_TARGET size_t KERNEL(marks)(const uint8_t *p, const uint8_t *end, uint64_t *bits)
{
	size_t len = (size_t)(end - p), w = 0, set = 0;
	for (; len - w * 64 >= 64; w++) {
		uint64_t m = ~PER_ISA(cont64)(p + w * 64);
		bits[w] = m;
		set += (size_t)__builtin_popcountll(m);
	}
	if (w * 64 < len)
		set += gtr_uvarint_marks_scalar(p + w * 64, end, bits + w);
	return set;
}
