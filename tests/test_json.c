/* tests/test_json.c: the JSON reader: values, escapes, exact integers, hostile input. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/base/json.h"

static gtr_json *parse_ok(const char *s)
{
	gtr_json *v;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_json_parse(s, strlen(s), &v, &e), 0, "%s: %s", s, e.msg);
	return v;
}

static void parse_bad(const char *s, size_t len)
{
	gtr_json *v = (gtr_json *)1;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_json_parse(s, len, &v, &e), GTR_E_CORRUPT, "accepted [%.*s]", (int)len, s);
	cr_assert_null(v);
	cr_assert_leq(e.off, len);
	cr_assert_neq(e.msg[0], 0);
}

Test(json, values)
{
	gtr_json *v = parse_ok(" {\"a\": [1, -2.5, 3e2, true, false, null, \"x\"], \"b\": {}, \"c\": []} ");
	cr_assert_eq(v->type, GTR_JSON_OBJ);
	cr_assert_eq(v->n, 3);
	const gtr_json *a = gtr_json_get(v, "a");
	cr_assert_eq(a->type, GTR_JSON_ARR);
	cr_assert_eq(a->n, 7);
	uint64_t u;
	cr_assert(gtr_json_uint(&a->items[0], &u));
	cr_assert_eq(u, 1);
	cr_assert_not(gtr_json_uint(&a->items[1], &u));
	cr_assert_float_eq(a->items[1].num, -2.5, 1e-12);
	cr_assert_float_eq(a->items[2].num, 300, 1e-9);
	cr_assert_not(gtr_json_uint(&a->items[2], &u), "3e2 is not written as an integer");
	cr_assert_eq(a->items[3].type, GTR_JSON_BOOL);
	cr_assert(a->items[3].boolean);
	cr_assert_not(a->items[4].boolean);
	cr_assert_eq(a->items[5].type, GTR_JSON_NULL);
	cr_assert_str_eq(gtr_json_string(&a->items[6]), "x");
	cr_assert_eq(gtr_json_get(v, "b")->type, GTR_JSON_OBJ);
	cr_assert_null(gtr_json_get(v, "zz"));
	cr_assert_null(gtr_json_get(a, "a"));
	gtr_json_free(v);
}

Test(json, integers_are_exact_up_to_uint64_max)
{
	gtr_json *v = parse_ok("[18446744073709551615, 9007199254740993, 18446744073709551616]");
	uint64_t u;
	cr_assert(gtr_json_uint(&v->items[0], &u));
	cr_assert_eq(u, UINT64_MAX);
	cr_assert(gtr_json_uint(&v->items[1], &u));
	cr_assert_eq(u, 9007199254740993ull);
	cr_assert_not(gtr_json_uint(&v->items[2], &u), "2^64 does not fit");
	gtr_json_free(v);
}

Test(json, string_escapes)
{
	gtr_json *v = parse_ok("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\u20ac\\ud83d\\ude00\"");
	cr_assert_str_eq(v->str, "a\"b\\c/d\n\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	gtr_json_free(v);
	v = parse_ok("\"\\u0000x\"");
	cr_assert_eq(v->len, 2);
	cr_assert_eq(v->str[0], 0);
	gtr_json_free(v);
	v = parse_ok("{\"k\":1,\"k\":2}");
	uint64_t u;
	cr_assert(gtr_json_uint(gtr_json_get(v, "k"), &u));
	cr_assert_eq(u, 2, "the last of a repeated member wins");
	gtr_json_free(v);
}

Test(json, bad_input_is_refused_with_an_offset)
{
	const char *bad[] = {
		"", "{", "[1,", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{1:2}", "\"abc", "\"a\\", "\"\\q\"",
		"\"\\u12\"", "\"\\uzzzz\"", "tru", "nul", "-", "1.", "1e", "[1]x", "\"a\nb\"", "{\"a\":1,}",
		"@",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		parse_bad(bad[i], strlen(bad[i]));
	/* A NUL inside the span is just a bad character. */
	parse_bad("[1,\0]", 5);
}

Test(json, nesting_is_bounded)
{
	char deep[4 * GTR_JSON_MAX_DEPTH];
	size_t n = 0;
	for (int i = 0; i < GTR_JSON_MAX_DEPTH + 1; i++)
		deep[n++] = '[';
	for (int i = 0; i < GTR_JSON_MAX_DEPTH + 1; i++)
		deep[n++] = ']';
	parse_bad(deep, n);
	/* One level less is fine. */
	gtr_json *v;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_json_parse(deep + 1, n - 2, &v, &e), 0, "%s", e.msg);
	gtr_json_free(v);
}

Test(json, every_prefix_of_a_document_fails_cleanly)
{
	const char *doc = "{\"schema\":\"gtr.baseline.v1\",\"traces\":[{\"name\":\"a\\u00e9\","
			  "\"metrics\":{\"x_ns\":12345678901234},\"top\":[1.5e3,-2,true,null]}]}";
	size_t len = strlen(doc);
	for (size_t cut = 0; cut < len; cut++)
		parse_bad(doc, cut);
	gtr_json *v = parse_ok(doc);
	gtr_json_free(v);
}
