/* io/name.c: the one escape for names that are not text (see name.h). */
#include "io/name.h"

#include <string.h>

/*
 * Length of the well-formed UTF-8 sequence at s[0..n) that is not a
 * control character, or 0 if its first byte must be escaped.
 */
static size_t plain_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c < 0x80)
		return c >= 0x20 && c != 0x7f ? 1 : 0;
	size_t len;
	unsigned cp, min;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0; /* overlong, out of range, a surrogate, or a C1 control */
	return len;
}

/* Calls put(ctx, piece, len) for each piece of the escaped form. */
static void escape(const char *s, size_t n, void (*put)(void *, const char *, size_t), void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;
	while (i < n) {
		size_t k = plain_len(u + i, n - i);
		if (k && !(u[i] == '\\' && i + 1 < n && u[i + 1] == 'x')) {
			i += k;
			continue;
		}
		if (i > run)
			put(ctx, s + run, i - run);
		char esc[4] = {'\\', 'x', hex[u[i] >> 4], hex[u[i] & 15]};
		put(ctx, esc, 4);
		i++;
		run = i;
	}
	if (n > run)
		put(ctx, s + run, n - run);
}

void gtr_name_pieces(const char *s, size_t n, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
	escape(s, n, put, ctx);
}

static void put_out(void *ctx, const char *p, size_t n)
{
	gtr_out_write(ctx, p, n);
}

void gtr_out_name(gtr_out *o, const char *s, size_t n)
{
	escape(s, n, put_out, o);
}

typedef struct sink {
	char *dst;
	size_t cap, len;
} sink;

static void put_buf(void *ctx, const char *p, size_t n)
{
	sink *k = ctx;
	if (k->len < k->cap) {
		size_t room = k->cap - k->len;
		memcpy(k->dst + k->len, p, n < room ? n : room);
	}
	k->len += n;
}

size_t gtr_name_escape(const char *s, size_t n, char *dst, size_t cap)
{
	sink k = {dst, cap ? cap - 1 : 0, 0};
	escape(s, n, put_buf, &k);
	if (cap)
		dst[k.len < k.cap ? k.len : k.cap] = 0;
	return k.len;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

size_t gtr_name_unescape(char *s)
{
	size_t r = 0, w = 0;
	while (s[r]) {
		int h, l;
		if (s[r] == '\\' && s[r + 1] == 'x' && (h = hexval(s[r + 2])) >= 0 &&
		    (l = hexval(s[r + 3])) >= 0) {
			s[w++] = (char)(h << 4 | l);
			r += 4;
		} else {
			s[w++] = s[r++];
		}
	}
	s[w] = 0;
	return w;
}
