/*
 * core/base/duration.c: Go's time.ParseDuration, for the command line.
 *
 * The arithmetic follows Go's so that a duration means to gtr what it
 * means to the Go program it came from: whole numbers are exact in
 * uint64 (overflow checked against 2^63), a fraction keeps as many digits
 * as fit below 2^63 and is scaled through a double, as Go does.
 */
#include "core/base/duration.h"

#include <stdio.h>
#include <string.h>

#define UNITS "ns, us, \xc2\xb5s, ms, s, m, h"
#define RANGE "duration \"%s\" is out of range%s (at most 2562047h47m16.854775807s, Go's limit)"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{"ns", 1},
	{"us", 1000},
	{"\xc2\xb5s", 1000}, /* U+00B5 MICRO SIGN */
	{"\xce\xbcs", 1000}, /* U+03BC GREEK SMALL LETTER MU */
	{"ms", 1000000},
	{"s", 1000000000},
	{"m", 60ull * 1000000000},
	{"h", 3600ull * 1000000000},
};

static int isdig(char c)
{
	return c >= '0' && c <= '9';
}

static int fail(char *why, size_t cap, const char *fmt, const char *s, const char *detail)
{
	if (why && cap) {
		/* The input is quoted whole unless it is long; the caller escapes for the terminal. */
		char q[64];
		size_t n = strlen(s);
		if (n < sizeof q)
			memcpy(q, s, n + 1);
		else
			snprintf(q, sizeof q, "%.50s...", s);
		snprintf(why, cap, fmt, q, detail);
	}
	return -1;
}

int gtr_duration_parse(const char *s, uint64_t *ns, char *why, size_t cap)
{
	const char *orig = s, *p = s;
	int neg = 0;
	const uint64_t lim = (uint64_t)1 << 63;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (strcmp(p, "0") == 0) {
		*ns = 0;
		return 0;
	}
	if (*p == 0)
		return fail(why, cap, "invalid duration \"%s\"%s: write a number and a unit (" UNITS ")", orig,
			    *orig ? "" : " (empty)");
	uint64_t d = 0;
	while (*p) {
		uint64_t v = 0, f = 0;
		double scale = 1;
		if (!(*p == '.' || isdig(*p)))
			return fail(why, cap, "invalid duration \"%s\": a number was expected at \"%s\"", orig, p);
		const char *q = p;
		for (; isdig(*p); p++) {
			if (v > lim / 10)
				return fail(why, cap, RANGE, orig, "");
			v = v * 10 + (uint64_t)(*p - '0');
			if (v > lim)
				return fail(why, cap, RANGE, orig, "");
		}
		int pre = p != q, post = 0;
		if (*p == '.') {
			q = ++p;
			int overflow = 0;
			for (; isdig(*p); p++) {
				if (overflow)
					continue;
				/* Digits past what 2^63 holds are dropped, as Go drops them. */
				if (f > lim / 10 || f * 10 + (uint64_t)(*p - '0') > lim) {
					overflow = 1;
					continue;
				}
				f = f * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
			post = p != q;
		}
		if (!pre && !post)
			return fail(why, cap, "invalid duration \"%s\"%s: a number has no digits", orig, "");
		q = p;
		while (*p && *p != '.' && !isdig(*p))
			p++;
		if (p == q)
			return fail(why, cap, "missing unit in duration \"%s\"%s (units: " UNITS "; e.g. 10ms)", orig,
				    "");
		uint64_t unit = 0;
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strlen(units[i].name) == (size_t)(p - q) && memcmp(units[i].name, q, (size_t)(p - q)) == 0)
				unit = units[i].ns;
		if (!unit) {
			char u[24];
			snprintf(u, sizeof u, "%.*s", (int)(p - q < 16 ? p - q : 16), q);
			return fail(why, cap, "unknown unit in duration \"%s\": \"%s\" (units: " UNITS ")", orig, u);
		}
		if (v > lim / unit)
			return fail(why, cap, RANGE, orig, "");
		v *= unit;
		if (f > 0) {
			v += (uint64_t)((double)f * ((double)unit / scale));
			if (v > lim)
				return fail(why, cap, RANGE, orig, "");
		}
		d += v;
		if (d > lim)
			return fail(why, cap, RANGE, orig, "");
	}
	if (neg && d)
		return fail(why, cap, "duration \"%s\" is negative%s: a length of time or a time since the trace "
				       "began is 0 or more",
			    orig, "");
	if (d > GTR_DURATION_MAX)
		return fail(why, cap, RANGE, orig, "");
	*ns = d;
	return 0;
}
