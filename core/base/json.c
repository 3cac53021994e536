/* core/base/json.c: a recursive-descent JSON reader with bounded depth. */
#include "core/base/json.h"

#include <stdlib.h>
#include <string.h>

typedef struct parser {
	const char *p, *start, *end;
	gtr_error *err;
	int depth;
} parser;

static int fail(parser *ps, const char *what)
{
	return gtr_error_set(ps->err, GTR_E_CORRUPT, (uint64_t)(ps->p - ps->start), "bad JSON: %s",
			     what);
}

static void skip_ws(parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int literal(parser *ps, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n) != 0)
		return fail(ps, "unexpected character");
	ps->p += n;
	return 0;
}

static int hex4(parser *ps, unsigned *out)
{
	if (ps->end - ps->p < 4)
		return fail(ps, "short \\u escape");
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = ps->p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(ps, "bad \\u escape");
	}
	ps->p += 4;
	*out = v;
	return 0;
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Parses a string at ps->p (on the opening quote) into a new buffer. */
static int string(parser *ps, char **out, size_t *outlen)
{
	ps->p++;
	/* The decoded form is never longer than the encoded one. */
	const char *q = ps->p;
	while (q < ps->end && *q != '"')
		q += *q == '\\' && q + 1 < ps->end ? 2 : 1;
	if (q >= ps->end)
		return fail(ps, "unterminated string");
	char *buf = malloc((size_t)(q - ps->p) + 1);
	if (!buf)
		return gtr_error_set(ps->err, GTR_E_NOMEM, 0, "out of memory");
	size_t n = 0;
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20) {
			free(buf);
			return fail(ps, "control character in a string");
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			ps->p++;
			continue;
		}
		ps->p++;
		char e = *ps->p++;
		unsigned cp;
		switch (e) {
		case '"': buf[n++] = '"'; break;
		case '\\': buf[n++] = '\\'; break;
		case '/': buf[n++] = '/'; break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'n': buf[n++] = '\n'; break;
		case 'r': buf[n++] = '\r'; break;
		case 't': buf[n++] = '\t'; break;
		case 'u':
			if (hex4(ps, &cp) < 0) {
				free(buf);
				return GTR_E_CORRUPT;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
			    ps->p[1] == 'u') {
				unsigned lo;
				const char *save = ps->p;
				ps->p += 2;
				if (hex4(ps, &lo) < 0) {
					free(buf);
					return GTR_E_CORRUPT;
				}
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					ps->p = save; /* a lone high surrogate, kept as is */
			}
			/* Six escaped bytes always cover the up to four they decode to. */
			n += utf8_put(buf + n, cp);
			break;
		default:
			free(buf);
			ps->p--;
			return fail(ps, "bad escape");
		}
	}
	ps->p++;
	buf[n] = 0;
	*out = buf;
	*outlen = n;
	return 0;
}

static int number(parser *ps, gtr_json *v)
{
	const char *s = ps->p;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	const char *digits = ps->p;
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	if (ps->p == digits)
		return fail(ps, "bad number");
	int integer = 1;
	if (ps->p < ps->end && *ps->p == '.') {
		integer = 0;
		ps->p++;
		const char *f = ps->p;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
		if (ps->p == f)
			return fail(ps, "bad number");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		integer = 0;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		const char *x = ps->p;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
		if (ps->p == x)
			return fail(ps, "bad number");
	}
	char tmp[64];
	size_t n = (size_t)(ps->p - s);
	if (n >= sizeof tmp) {
		/* Long numbers are legal; their double is what matters. */
		n = sizeof tmp - 1;
	}
	memcpy(tmp, s, n);
	tmp[n] = 0;
	v->type = GTR_JSON_NUM;
	v->num = strtod(tmp, NULL);
	if (integer && *s != '-') {
		uint64_t u = 0;
		int ok = 1;
		for (const char *d = digits; d < ps->p; d++) {
			unsigned dig = (unsigned)(*d - '0');
			if (u > (UINT64_MAX - dig) / 10) {
				ok = 0;
				break;
			}
			u = u * 10 + dig;
		}
		v->is_uint = ok;
		v->uint = ok ? u : 0;
	}
	return 0;
}

static int value(parser *ps, gtr_json *v);

/* Appends a zeroed item to v->items. */
static gtr_json *push(parser *ps, gtr_json *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		gtr_json *ni = realloc(v->items, ncap * sizeof *ni);
		if (!ni) {
			gtr_error_set(ps->err, GTR_E_NOMEM, 0, "out of memory");
			return NULL;
		}
		v->items = ni;
		*cap = ncap;
	}
	gtr_json *it = &v->items[v->n++];
	memset(it, 0, sizeof *it);
	return it;
}

static int container(parser *ps, gtr_json *v, int obj)
{
	if (++ps->depth > GTR_JSON_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	v->type = obj ? GTR_JSON_OBJ : GTR_JSON_ARR;
	ps->p++;
	size_t cap = 0;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		skip_ws(ps);
		char *key = NULL;
		size_t klen;
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a member name");
			int rc = string(ps, &key, &klen);
			if (rc < 0)
				return rc;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return fail(ps, "expected ':'");
			}
			ps->p++;
		}
		gtr_json *it = push(ps, v, &cap);
		if (!it) {
			free(key);
			return GTR_E_NOMEM;
		}
		it->key = key;
		int rc = value(ps, it);
		if (rc < 0)
			return rc;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int value(parser *ps, gtr_json *v)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end");
	v->off = (size_t)(ps->p - ps->start);
	switch (*ps->p) {
	case '{': return container(ps, v, 1);
	case '[': return container(ps, v, 0);
	case '"':
		v->type = GTR_JSON_STR;
		return string(ps, &v->str, &v->len);
	case 't':
		v->type = GTR_JSON_BOOL;
		v->boolean = 1;
		return literal(ps, "true");
	case 'f':
		v->type = GTR_JSON_BOOL;
		return literal(ps, "false");
	case 'n':
		v->type = GTR_JSON_NULL;
		return literal(ps, "null");
	default: return number(ps, v);
	}
}

static void release(gtr_json *v)
{
	for (size_t i = 0; i < v->n; i++)
		release(&v->items[i]);
	free(v->items);
	free(v->str);
	free(v->key);
}

void gtr_json_free(gtr_json *v)
{
	if (!v)
		return;
	release(v);
	free(v);
}

int gtr_json_parse(const char *text, size_t len, gtr_json **out, gtr_error *err)
{
	*out = NULL;
	if (!text || len == 0)
		return gtr_error_set(err, GTR_E_CORRUPT, 0, "bad JSON: empty input");
	parser ps = {.p = text, .start = text, .end = text + len, .err = err};
	gtr_json *v = calloc(1, sizeof *v);
	if (!v)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	int rc = value(&ps, v);
	if (rc == 0) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			rc = fail(&ps, "trailing characters");
	}
	if (rc < 0) {
		gtr_json_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

const gtr_json *gtr_json_get(const gtr_json *obj, const char *key)
{
	if (!obj || obj->type != GTR_JSON_OBJ)
		return NULL;
	const gtr_json *found = NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (obj->items[i].key && strcmp(obj->items[i].key, key) == 0)
			found = &obj->items[i];
	return found;
}

int gtr_json_uint(const gtr_json *v, uint64_t *out)
{
	if (!v || v->type != GTR_JSON_NUM || !v->is_uint)
		return 0;
	*out = v->uint;
	return 1;
}

const char *gtr_json_string(const gtr_json *v)
{
	return v && v->type == GTR_JSON_STR ? v->str : NULL;
}
