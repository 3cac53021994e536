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

size_t gtr_uvarint_marks_scalar(const uint8_t *p, const uint8_t *end, uint64_t *bits)
{
	size_t len = (size_t)(end - p), set = 0;
	for (size_t w = 0; w * 64 < len; w++) {
		uint64_t m = 0;
		for (size_t i = 0; i < 64 && w * 64 + i < len; i++)
			m |= (uint64_t)(p[w * 64 + i] < 0x80) << i;
		bits[w] = m;
		set += (size_t)__builtin_popcountll(m);
	}
	return set;
}
