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
 *   ISA_WINDOW32 the same for decode32;
 *   ISA_OWN32    (optional) the ISA has its own decode_block32_ISA,
 *                lut64_u32 and decode32_lut kernels; without it, the body
 *                gives them from decode_block_ISA, 16-byte shuffles
 *                (LUT64_16) and decode32_n;
 *   ISA_LENS     (optional) the record walk steps by gtr_record_lens_ISA, the
 *                lengths of a block's records, instead of one at a time;
 * and the per-ISA functions cont64_ISA (the continuation bits of 64 bytes),
 * select_ISA (the position of the k-th set bit), decode_block_ISA
 * (values of `take` varints of at most 8 bytes), decode_block32_ISA (the
 * same as 32-bit values, GTR_UVARINT32_LONG where one does not fit), and for the record walk
 * select8_ISA (not with ISA_LENS) and select16_ISA (the position of the
 * n-th set bit, n <= 4, of 64 or 16 bits: 64, or 16 or more, when there
 * are fewer) and value8_ISA (one varint of at most 8 bytes whose last byte
 * is known).
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

#ifndef ISA_OWN32
static inline ISA_TARGET void PER_ISA(decode_block32)(const uint8_t *q, uint64_t t, size_t take, uint32_t *out)
{
	uint64_t v[64];
	PER_ISA(decode_block)(q, t, take, v);
	for (size_t j = 0; j < take; j++)
		out[j] = narrow32(v[j]);
}
#endif

/* decode_blocks for 32-bit values: varints of 9 bytes or more go to
 * the reference. */
static __attribute__((noinline)) ISA_TARGET ptrdiff_t PER_ISA(decode32_blocks)(const uint8_t *p,
									     const uint8_t *end,
									     uint32_t *out, size_t n)
{
	const uint8_t *q = p;
	while (n >= SMALL_N && end - q >= GTR_PAD) {
		uint64_t c = PER_ISA(cont64)(q), t = ~c & ISA_WINDOW32;
		if (t == 0)
			break;
		size_t k = (size_t)__builtin_popcountll(t), take = k < n ? k : n;
		unsigned span = take == k ? 64 - (unsigned)__builtin_clzll(t) : PER_ISA(select)(t, take) + 1;
		uint64_t bad = runs8(c) & below(span);
		if (bad) {
			take = (size_t)__builtin_popcountll(t & below((unsigned)__builtin_ctzll(bad)));
			if (take == 0) {
				ptrdiff_t s = gtr_uvarint_decode32_n_scalar(q, end, out, 1);
				if (s < 0)
					return s;
				q += s;
				out++;
				n--;
				continue;
			}
			span = PER_ISA(select)(t, take) + 1;
		}
		PER_ISA(decode_block32)(q, t, take, out);
		q += span;
		out += take;
		n -= take;
	}
	if (n == 0)
		return q - p;
	ptrdiff_t s = gtr_uvarint_decode32_n_scalar(q, end, out, n);
	return s < 0 ? s : (q - p) + s;
}

ISA_TARGET ptrdiff_t KERNEL(decode32_n)(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t n)
{
	if (n < SMALL_N || end - p < GTR_PAD)
		return gtr_uvarint_decode32_n_scalar(p, end, out, n);
	return PER_ISA(decode32_blocks)(p, end, out, n);
}

#ifdef ISA_SHORT32
/*
 * decode32_lut in one pass, for the ISAs that decode 32-bit lanes of 4
 * bytes (decode_short32_ISA: varints of at most 4 bytes, starting at
 * byte 60 at most): a block whose varints all take 4 bytes or fewer is
 * decoded that way, one with a longer one by decode_block32, and one
 * with a varint of 9 bytes or more up to it, that one by the reference.
 * The table lookups come after, over all the values at once.
 */
ISA_TARGET ptrdiff_t KERNEL(decode32_lut)(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					  const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used)
{
	const uint8_t *q = p;
	size_t n = 0;
	while (end - q >= GTR_PAD && q < lim) {
		const uint64_t c = PER_ISA(cont64)(q);
		const uint64_t t = ~c & below((unsigned)(lim - q < 61 ? lim - q : 61));
		if (t == 0)
			break; /* nothing ends before lim or byte 61 here: the reference says */
		unsigned span = 64 - (unsigned)__builtin_clzll(t);
		size_t take = (size_t)__builtin_popcountll(t);
		const uint64_t bad = runs8(c) & below(span);
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
			span = PER_ISA(select)(t, take) + 1;
		}
		/* Four continuation bytes in a row: a varint of 5 bytes or more. */
		const uint64_t c2 = c & (c >> 1);
		if (c2 & (c2 >> 2) & below(span))
			PER_ISA(decode_block32)(q, t, take, out + n);
		else
			PER_ISA(decode_short32)(q, t, take, out + n);
		n += take;
		q += span;
	}
	size_t u;
	ptrdiff_t r = gtr_uvarint_decode32_lut_scalar(q, lim, end, lut, out + n, steps + n, &u);
	if (r < 0)
		return r;
	PER_ISA(gtr_lut64_u32)(out, n, lut, steps);
	*used = (size_t)(q - p) + u;
	return (ptrdiff_t)n + r;
}
#endif

#ifndef ISA_OWN32
ISA_TARGET void PER_ISA(gtr_lut64_u32)(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out)
{
	__m128i q[4];
	LUT64_QUARTERS(lut, q);
	size_t i = 0;
#ifdef ISA_LUT64_32
	i = PER_ISA(lut64_32)(v, n, q, out);
#endif
	for (; i + 16 <= n; i += 16)
		LUT64_16(v + i, q, out + i);
	gtr_lut64_u32_scalar(v + i, n - i, lut, out + i);
}

#ifndef ISA_SHORT32
/* decode32_lut: the varints ending before lim counted a block at a time,
 * then decode32_n and lut64 over them. */
ISA_TARGET ptrdiff_t KERNEL(decode32_lut)(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					  const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used)
{
	size_t cnt = 0, i = 0, len = (size_t)(lim - p);
	for (; i + 64 <= len; i += 64)
		cnt += (size_t)__builtin_popcountll(~PER_ISA(cont64)(p + i));
	for (; i < len; i++)
		cnt += p[i] < 0x80;
	*used = 0;
	if (cnt == 0)
		return 0;
	ptrdiff_t r = KERNEL(decode32_n)(p, end, out, cnt);
	if (r < 0)
		return r;
	PER_ISA(gtr_lut64_u32)(out, cnt, lut, steps);
	*used = (size_t)r;
	return (ptrdiff_t)cnt;
}
#endif
#endif

ISA_TARGET size_t KERNEL(count)(const uint8_t *p, const uint8_t *end)
{
	size_t len = (size_t)(end - p), i = 0, n = 0;
	for (; len - i >= 64; i += 64)
		n += (size_t)__builtin_popcountll(~PER_ISA(cont64)(p + i));
	return n + gtr_uvarint_count_scalar(p + i, end);
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

/*
 * The record walk. Most records have their values within the 8 bytes
 * after the tag, and most tags (those of Go's v1 traces, for which the
 * walk was made) say their count of values in their top two bits, plus
 * one: the walk guesses that count, finds where that many values end
 * with one select on the 0x80 bits of an 8-byte load, and then checks
 * the guess against nvals. Nothing on the way from one record to the
 * next is a branch on the data or a load but those two, so the loop runs
 * at the latency of a load, a select and two adds per record. Any other
 * record goes through a 16-byte compare. The checks that send a record
 * back to the caller are all on bits already at hand, and no load goes
 * past the GTR_PAD bytes in front of a record.
 */
static __attribute__((noinline)) ISA_TARGET int PER_ISA(walk_other)(const uint8_t *q, const uint8_t *end,
								      unsigned n, uint64_t *first,
								      size_t *size)
{
	/* Bit i: q[1 + i] ends a varint. */
	const uint32_t m = (uint32_t)(uint16_t)~_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(q + 1)));
	const unsigned t0 = (unsigned)__builtin_ctz(m | 0x10000);
	if (n - 1 < GTR_WALK_MAXVALS) {
		unsigned e = PER_ISA(select16)(m, n);
		if (e >= GTR_WALK_SPAN || (runs8(~m & 0xffff) & below(e)))
			return 0;
		*first = PER_ISA(value8)(gtr_load64(q + 1), 8 * t0 + 7);
		*size = (size_t)e + 2;
		return 1;
	}
	if (n != GTR_WALK_LIST || t0 >= 8)
		return 0;
	uint64_t len = PER_ISA(value8)(gtr_load64(q + 1), 8 * t0 + 7);
	const unsigned t1 = (unsigned)__builtin_ctz((m >> (t0 + 1)) | 0x10000);
	if (t1 >= 8 || t1 >= len || len > (uint64_t)(end - (q + t0 + 2)))
		return 0;
	*first = PER_ISA(value8)(gtr_load64(q + t0 + 2), 8 * t1 + 7);
	*size = (size_t)(t0 + 2) + (size_t)len;
	return 1;
}

#ifdef ISA_LENS
/* The first value of a list whose length is one byte, if it ends in its
 * first 8 bytes and before the list does. */
static inline ISA_TARGET int PER_ISA(list_first)(const uint8_t *r, uint64_t *first)
{
	const uint64_t x = gtr_load64(r + 2), e = ~x & UINT64_C(0x8080808080808080);
	if (e == 0 || (unsigned)__builtin_ctzll(e) >> 3 >= r[1])
		return 0;
	*first = PER_ISA(value8)(x, (unsigned)__builtin_ctzll(e));
	return 1;
}

/*
 * With a fast record_lens, the walk steps by the lengths it computes for
 * a chunk of bytes ahead: one load from one record to the next. The
 * chunk starts small and doubles while the walk goes through it whole,
 * so that a run of records that stops early wastes little. A record the
 * lengths do not give, or that the walk below would not take whole (more
 * than GTR_WALK_MAXVALS values, more than GTR_WALK_SPAN bytes after the
 * tag, a list whose first value is not in its first 8 bytes) goes to
 * walk_other, which decides as the walk does.
 */
ISA_TARGET size_t KERNEL(walk)(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			       gtr_walk_sums *sums, size_t *nrec)
{
	uint8_t lens[4096];
	const uint8_t *q = p;
	uint64_t sum = sums->sum, lo = sums->min, hi = sums->max;
	size_t recs = 0, chunk = 256;
	while (end - q >= GTR_PAD) {
		const size_t starts = (size_t)(end - q) - GTR_PAD + 1, n = starts < chunk ? starts : chunk;
		PER_ISA(gtr_record_lens)(q, n, end, nvals, lens);
		size_t i = 0;
		while (i < n) {
			const uint8_t *r = q + i;
			const unsigned l = lens[i], tag = r[0];
			uint64_t first;
			size_t size;
			const unsigned nv = nvals[tag];
			if (__builtin_expect(l - 1u <= GTR_WALK_SPAN && nv - 1u < GTR_WALK_MAXVALS, 1)) {
				const uint64_t x = gtr_load64(r + 1);
				first = PER_ISA(value8)(x, (unsigned)__builtin_ctzll(~x & UINT64_C(0x8080808080808080)));
				size = l;
			} else if (l && nv == GTR_WALK_LIST && PER_ISA(list_first)(r, &first)) {
				size = l; /* a list with a one-byte length */
			} else if (!PER_ISA(walk_other)(r, end, nv, &first, &size)) {
				q = r;
				goto out;
			}
			sum += first;
			lo = sum < lo ? sum : lo;
			hi = sum > hi ? sum : hi;
			sums->count[tag]++;
			sums->bytes[tag] += size;
			i += size;
			recs++;
		}
		q += i;
		if (chunk < sizeof lens)
			chunk *= 2;
	}
out:
	sums->sum = sum;
	sums->min = lo;
	sums->max = hi;
	*nrec = recs;
	return (size_t)(q - p);
}
#else
ISA_TARGET size_t KERNEL(walk)(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			       gtr_walk_sums *sums, size_t *nrec)
{
	const uint8_t *q = p;
	uint64_t sum = sums->sum, lo = sums->min, hi = sums->max;
	size_t recs = 0;
	while (end - q >= GTR_PAD) {
		const unsigned tag = q[0], n = (tag >> 6) + 1;
		const uint64_t x = gtr_load64(q + 1);
		/* The flag bit of every byte that ends a varint. */
		const uint64_t ends = ~x & UINT64_C(0x8080808080808080);
		const unsigned e = PER_ISA(select8)(ends, n);
		uint64_t first;
		size_t size;
		const uint8_t *next;
		if (__builtin_expect(nvals[tag] == n && e < 64, 1)) {
			first = PER_ISA(value8)(x, (unsigned)__builtin_ctzll(ends));
			next = q + 2 + (e >> 3); /* one lea after the select */
			size = (size_t)(next - q);
		} else if (PER_ISA(walk_other)(q, end, nvals[tag], &first, &size)) {
			next = q + size;
		} else {
			break;
		}
		sum += first;
		lo = sum < lo ? sum : lo;
		hi = sum > hi ? sum : hi;
		sums->count[tag]++;
		sums->bytes[tag] += size;
		q = next;
		recs++;
	}
	sums->sum = sum;
	sums->min = lo;
	sums->max = hi;
	*nrec = recs;
	return (size_t)(q - p);
}
#endif
