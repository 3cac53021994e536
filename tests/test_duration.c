/* tests/test_duration.c: durations parse as Go's time.ParseDuration parses them. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/base/duration.h"

static uint64_t ok(const char *s)
{
	uint64_t ns = 12345;
	char why[200] = "";
	int rc = gtr_duration_parse(s, &ns, why, sizeof why);
	cr_assert_eq(rc, 0, "\"%s\" refused: %s", s, why);
	return ns;
}

/* Refused, with a message that quotes the input and contains `want`. */
static void bad(const char *s, const char *want)
{
	uint64_t ns = 777;
	char why[200] = "";
	int rc = gtr_duration_parse(s, &ns, why, sizeof why);
	cr_assert_eq(rc, -1, "\"%s\" accepted as %llu", s, (unsigned long long)ns);
	cr_assert_eq(ns, 777, "\"%s\": the output changed on an error", s);
	cr_assert(strstr(why, want), "\"%s\": message \"%s\" lacks \"%s\"", s, why, want);
	cr_assert(!strchr(why, '\n'), "\"%s\": the message is more than one line", s);
}

/* The values below are what Go's time.ParseDuration returns for the same strings. */
Test(duration, units)
{
	cr_assert_eq(ok("1ns"), 1);
	cr_assert_eq(ok("1us"), 1000);
	cr_assert_eq(ok("1\xc2\xb5s"), 1000);
	cr_assert_eq(ok("1\xce\xbcs"), 1000);
	cr_assert_eq(ok("1ms"), 1000000);
	cr_assert_eq(ok("1s"), 1000000000);
	cr_assert_eq(ok("1m"), 60000000000ull);
	cr_assert_eq(ok("1h"), 3600000000000ull);
}

Test(duration, zero_alone_needs_no_unit)
{
	cr_assert_eq(ok("0"), 0);
	cr_assert_eq(ok("+0"), 0);
	cr_assert_eq(ok("-0"), 0);
	cr_assert_eq(ok("0s"), 0);
	cr_assert_eq(ok("0.0ms"), 0);
}

Test(duration, decimals_and_sequences)
{
	cr_assert_eq(ok("1.5ms"), 1500000);
	cr_assert_eq(ok(".5s"), 500000000);
	cr_assert_eq(ok("5.s"), 5000000000ull);
	cr_assert_eq(ok("1h2m3.5s"), 3723500000000ull);
	cr_assert_eq(ok("2m1s"), 121000000000ull);
	cr_assert_eq(ok("1s1s"), 2000000000);            /* Go adds repeated units */
	cr_assert_eq(ok("1.000000001s"), 1000000001);
	cr_assert_eq(ok("100.00100s"), 100001000000ull);
	cr_assert_eq(ok("0.3333333333333333333h"), 1200000000000ull);
	cr_assert_eq(ok("+20us"), 20000);
	cr_assert_eq(ok("9223372036854775807ns"), GTR_DURATION_MAX);
	cr_assert_eq(ok("9223372036s854775807ns"), GTR_DURATION_MAX);
	cr_assert_eq(ok("0.9223372036854775807s"), 922337203);
	/* A long fraction: the digits past what 2^63 holds are dropped. */
	cr_assert_eq(ok("0.100000000000000000000h"), 360000000000ull);
}

Test(duration, a_bare_number_is_refused)
{
	bad("10", "missing unit");
	bad("1500", "missing unit in duration \"1500\"");
	bad("1.5", "missing unit");
	bad("00", "missing unit");
	bad("1s5", "missing unit");
}

Test(duration, malformed)
{
	bad("", "invalid duration");
	bad("-", "invalid duration");
	bad("+", "invalid duration");
	bad(".", "no digits");
	bad(".s", "no digits");
	bad("s", "a number was expected");
	bad("1.5.5s", "missing unit"); /* ".5s" would be a second number: "1.5" has no unit */
	bad("3000000h", "out of range");
	bad("9223372036854775808ns", "out of range");
	bad("9223372036854775807ns1ns", "out of range");
	bad("5parsecs", "unknown unit in duration \"5parsecs\": \"parsecs\"");
	bad("10 ms", "unknown unit");
	bad("10MS", "unknown unit");
	bad("1sec", "unknown unit");
	bad("-1s", "negative");
	bad("-1.5ms", "negative");
}
