/*
 * core/base/json.h: a small JSON reader, for the baselines `gtr check` reads.
 *
 * gtr_json_parse builds a tree from a byte span (RFC 8259: objects,
 * arrays, strings with every escape, numbers, true, false, null). Numbers
 * keep their double value and, when they are integers that fit, their
 * exact uint64/int64 value, so that ns counts survive a round trip.
 * Nesting is limited to GTR_JSON_MAX_DEPTH and every length is checked:
 * hostile input gives GTR_E_CORRUPT with the byte offset, never a crash.
 * A tree is owned by one thread; reading it from several is fine.
 */
#ifndef GTR_CORE_JSON_H
#define GTR_CORE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

#define GTR_JSON_MAX_DEPTH 64

typedef enum gtr_json_type {
	GTR_JSON_NULL = 0,
	GTR_JSON_BOOL,
	GTR_JSON_NUM,
	GTR_JSON_STR,
	GTR_JSON_ARR,
	GTR_JSON_OBJ,
} gtr_json_type;

typedef struct gtr_json gtr_json;

struct gtr_json {
	gtr_json_type type;
	int boolean;
	double num;
	int is_uint;       /* a non-negative integer that fits in uint64 */
	uint64_t uint;
	char *str;         /* decoded UTF-8, NUL-terminated (may hold NULs: use len) */
	size_t len;
	gtr_json *items;   /* array elements, or object members in file order */
	size_t n;
	char *key;         /* the member's name when inside an object */
	size_t off;        /* byte offset of the value in the text */
};

/* Parses text[0..len). On success *out owns the tree; free with gtr_json_free. */
int gtr_json_parse(const char *text, size_t len, gtr_json **out, gtr_error *err);
void gtr_json_free(gtr_json *v);

/* The member `key` of an object (the last one when repeated), or NULL. */
const gtr_json *gtr_json_get(const gtr_json *obj, const char *key);

/* The value as an exact uint64: 1 on success, 0 when it is not one. */
int gtr_json_uint(const gtr_json *v, uint64_t *out);

/* The string value, or NULL when v is not a string. */
const char *gtr_json_string(const gtr_json *v);

#endif
