/* tests/test_name.c: io/name, the escape of names that are not text. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "io/name.h"

static const char *esc(const char *s, size_t n)
{
	static char buf[512];
	size_t len = gtr_name_escape(s, n, buf, sizeof buf);
	cr_assert_eq(len, strlen(buf));
	return buf;
}

/* Escapes, checks the result is what is expected, and decodes it back. */
static void round_trip(const char *s, size_t n, const char *want)
{
	const char *e = esc(s, n);
	cr_assert_str_eq(e, want);
	char back[512];
	strcpy(back, e);
	size_t len = gtr_name_unescape(back);
	cr_assert_eq(len, n, "%s", want);
	cr_assert_eq(memcmp(back, s, n), 0, "%s", want);
}

Test(name, text_is_unchanged)
{
	round_trip("a.trace", 7, "a.trace");
	round_trip("caf\xc3\xa9/\xe2\x82\xac.trace", 15, "caf\xc3\xa9/\xe2\x82\xac.trace");
	round_trip("\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80");
	round_trip("a\\b", 3, "a\\b");
}

Test(name, bytes_that_are_not_utf8)
{
	round_trip("bad\xff.trace", 10, "bad\\xff.trace");
	round_trip("\xc3(", 2, "\\xc3(");                 /* a lead byte without its continuation */
	round_trip("\xc0\xaf", 2, "\\xc0\\xaf");          /* an overlong '/' */
	round_trip("\xed\xa0\x80", 3, "\\xed\\xa0\\x80"); /* a surrogate */
	round_trip("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
	round_trip("\xe2\x82", 2, "\\xe2\\x82");          /* cut short */
}

Test(name, control_characters)
{
	round_trip("a\nb\tc\x1b[31m", 10, "a\\x0ab\\x09c\\x1b[31m");
	round_trip("\x7f", 1, "\\x7f");
	round_trip("\xc2\x9b", 2, "\\xc2\\x9b"); /* C1: CSI */
	round_trip("\xc2\xa0", 2, "\xc2\xa0");   /* U+00A0 is not a control */
}

Test(name, a_backslash_before_x_is_escaped)
{
	round_trip("a\\x41", 5, "a\\x5cx41");
	round_trip("\\\xff", 2, "\\\\xff");
	round_trip("\\", 1, "\\");
}

Test(name, cut_short_when_the_buffer_is_small)
{
	char buf[5];
	cr_assert_eq(gtr_name_escape("\xff\xff", 2, buf, sizeof buf), 8);
	cr_assert_str_eq(buf, "\\xff");
	cr_assert_eq(gtr_name_escape("abc", 3, NULL, 0), 3);
}
