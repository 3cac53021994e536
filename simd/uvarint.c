/* simd/uvarint.c: scalar reference kernels. */
#include "uvarint.h"

ptrdiff_t gtr_uvarint_skip_scalar(const uint8_t *p, const uint8_t *end, size_t n)
{
	const uint8_t *q = p;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		int k = gtr_uvarint_decode(q, end, &v);
		if (k == GTR_UVARINT_SHORT)
			return GTR_UVARINT_SKIP_SHORT;
		if (k < 0)
			return k;
		q += k;
	}
	return q - p;
}

ptrdiff_t gtr_uvarint_decode_n_scalar(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t n)
{
	const uint8_t *q = p;
	for (size_t i = 0; i < n; i++) {
		int k = gtr_uvarint_decode(q, end, &out[i]);
		if (k == GTR_UVARINT_SHORT)
			return GTR_UVARINT_SKIP_SHORT;
		if (k < 0)
			return k;
		q += k;
	}
	return q - p;
}

ptrdiff_t gtr_uvarint_decode32_n_scalar(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t n)
{
	const uint8_t *q = p;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		int k = gtr_uvarint_decode(q, end, &v);
		if (k == GTR_UVARINT_SHORT)
			return GTR_UVARINT_SKIP_SHORT;
		if (k < 0)
			return k;
		out[i] = v < GTR_UVARINT32_LONG ? (uint32_t)v : GTR_UVARINT32_LONG;
		q += k;
	}
	return q - p;
}

void gtr_lut64_u32_scalar(const uint32_t *v, size_t n, const uint8_t lut[64], uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = v[i] < 64 ? lut[v[i]] : 0;
}

ptrdiff_t gtr_uvarint_decode32_lut_scalar(const uint8_t *p, const uint8_t *lim, const uint8_t *end,
					  const uint8_t lut[64], uint32_t *out, uint8_t *steps, size_t *used)
{
	const uint8_t *q = p;
	size_t n = 0;
	for (;;) {
		uint64_t v;
		int k;
		/* One to three bytes, most values, without a loop. */
		if (q < lim && q[0] < 0x80) {
			v = q[0];
			k = 1;
		} else if (lim - q >= 2 && q[1] < 0x80) {
			v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
			k = 2;
		} else if (lim - q >= 3 && q[2] < 0x80) {
			v = (uint64_t)(q[0] & 0x7f) | (uint64_t)(q[1] & 0x7f) << 7 | (uint64_t)q[2] << 14;
			k = 3;
		} else {
			const uint8_t *e = q;
			while (e < lim && *e >= 0x80)
				e++;
			if (e >= lim)
				break;
			k = gtr_uvarint_decode(q, end, &v);
			if (k <= 0) /* an end is before lim: not short, but too long */
				return k < 0 ? k : GTR_UVARINT_SKIP_SHORT;
		}
		out[n] = v < GTR_UVARINT32_LONG ? (uint32_t)v : GTR_UVARINT32_LONG;
		steps[n] = v < 64 ? lut[v] : 0;
		n++;
		q += k;
	}
	*used = (size_t)(q - p);
	return (ptrdiff_t)n;
}

/*
 * The ends among 8 bytes read as one word: bit i set iff byte i < 0x80.
 * Each byte's high bit, inverted and moved to bit 0 of its byte, is
 * gathered into the top byte by one multiply (bit 8k lands on bit 56 + k,
 * and no two partial products meet). Little-endian hosts only.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORD_ENDS 1
static inline unsigned word_ends(const uint8_t *q)
{
	uint64_t t = gtr_uvarint_ends8(gtr_load64(q)) >> 7;
	return (unsigned)((t * UINT64_C(0x0102040810204080)) >> 56);
}
#endif

size_t gtr_uvarint_marks_scalar(const uint8_t *p, const uint8_t *end, uint64_t *bits)
{
	size_t len = (size_t)(end - p), set = 0;
	for (size_t w = 0; w * 64 < len; w++) {
		uint64_t m = 0;
		size_t i = 0;
#ifdef WORD_ENDS
		for (; i < 64 && w * 64 + i + 8 <= len; i += 8)
			m |= (uint64_t)word_ends(p + w * 64 + i) << i;
#endif
		for (; i < 64 && w * 64 + i < len; i++)
			m |= (uint64_t)(p[w * 64 + i] < 0x80) << i;
		bits[w] = m;
		set += (size_t)__builtin_popcountll(m);
	}
	return set;
}

size_t gtr_uvarint_count_scalar(const uint8_t *p, const uint8_t *end)
{
	size_t n = 0;
#ifdef WORD_ENDS
	for (; end - p >= 8; p += 8)
		n += (size_t)__builtin_popcountll(gtr_uvarint_ends8(gtr_load64(p)));
#endif
	for (; p < end; p++)
		n += *p < 0x80;
	return n;
}

/* Decodes a value of at most 8 bytes that ends before `lim`; its length, or 0. */
static unsigned short_value(const uint8_t *q, const uint8_t *lim, uint64_t *v)
{
	int k = gtr_uvarint_decode(q, lim, v);
	return k > 0 && k <= 8 ? (unsigned)k : 0;
}

size_t gtr_uvarint_walk_scalar(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256],
			       gtr_walk_sums *sums, size_t *nrec)
{
	const uint8_t *q = p;
	size_t recs = 0;
	while (end - q >= GTR_PAD) {
		unsigned n = nvals[q[0]];
		const uint8_t *at = q + 1, *span = q + 1 + GTR_WALK_SPAN;
		uint64_t first = 0, len;
		size_t size;
		if (n == 0)
			break;
		if (n == GTR_WALK_LIST) {
			unsigned k = short_value(at, span, &len);
			if (k == 0 || len == 0 || len > (uint64_t)(end - (at + k)))
				break;
			const uint8_t *list = at + k;
			const uint8_t *lim = len < (uint64_t)(span - list) ? list + len : span;
			if (short_value(list, lim, &first) == 0)
				break;
			size = 1 + k + (size_t)len;
		} else {
			if (n > GTR_WALK_MAXVALS)
				break;
			const uint8_t *r = at;
			unsigned i = 0;
			for (; i < n; i++) {
				uint64_t v;
				unsigned k = short_value(r, span, &v);
				if (k == 0)
					break;
				if (i == 0)
					first = v;
				r += k;
			}
			if (i < n)
				break;
			size = (size_t)(r - q);
		}
		sums->sum += first;
		if (sums->sum < sums->min)
			sums->min = sums->sum;
		if (sums->sum > sums->max)
			sums->max = sums->sum;
		sums->count[q[0]]++;
		sums->bytes[q[0]] += size;
		q += size;
		recs++;
	}
	*nrec = recs;
	return (size_t)(q - p);
}

/* The length of the record at q (see gtr_record_lens_fn), or 0. */
static unsigned record_len(const uint8_t *q, const uint8_t *end, const uint8_t nvals[256])
{
	unsigned n = nvals[q[0]], len;
	size_t room = (size_t)(end - q) < GTR_LENS_MAX ? (size_t)(end - q) : GTR_LENS_MAX;
	if (n == 0)
		return 0;
	if (n == GTR_WALK_LIST) {
		if (room < 2 || q[1] == 0 || q[1] >= 0x80)
			return 0;
		len = 2u + q[1];
	} else {
		if (n > GTR_LENS_MAXVALS)
			return 0;
		len = 1;
		for (unsigned j = 0; j < n; j++) {
			while (len < room && q[len] >= 0x80)
				len++;
			if (len >= room)
				return 0;
			len++;
		}
	}
	if (len > room)
		return 0;
	for (unsigned i = 0, run = 0; i < len; i++)
		if ((run = q[i] >= 0x80 ? run + 1 : 0) == 8)
			return 0;
	return len;
}

void gtr_record_lens_scalar(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256],
			    uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)record_len(p + i, end, nvals);
}
