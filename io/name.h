/*
 * io/name.h: names that are not text, written as text.
 *
 * File names are bytes; function names in a trace are whatever the
 * program wrote. JSON and XML need valid UTF-8, XML cannot hold most
 * control characters at all, and a terminal acts on them. Every writer
 * of gtr (text, JSON, JUnit XML, baselines, messages on stderr) passes
 * names through this one escape, which is lossless:
 *
 *   - a byte that is not part of a well-formed UTF-8 sequence (RFC 3629:
 *     no overlong forms, no surrogates, nothing past U+10FFFF) is
 *     written \xHH (two lowercase hex digits);
 *   - so is every byte of a control character: C0 (U+0000 to U+001F),
 *     DEL (U+007F) and C1 (U+0080 to U+009F, whose UTF-8 bytes are
 *     written \xc2\xHH);
 *   - a backslash that is followed by "x" is written \x5c;
 *   - everything else is copied.
 *
 * The result is valid UTF-8 without control characters; a name that
 * was already such text (and has no "\x") is unchanged. Decoding turns
 * each \xHH back into its byte and copies the rest; a JSON or XML
 * writer then adds its own quoting on top.
 */
#ifndef GTR_IO_NAME_H
#define GTR_IO_NAME_H

#include <stddef.h>

#include "io/out.h"

/* Writes the escaped form of s[0..n) (no quotes around it). */
void gtr_out_name(gtr_out *o, const char *s, size_t n);

/*
 * The escaped form into dst (cap bytes, NUL-terminated, cut short if it
 * does not fit); returns its full length, as snprintf does.
 */
size_t gtr_name_escape(const char *s, size_t n, char *dst, size_t cap);

/* The escaped form in pieces: put(ctx, p, n) for each, in order (for writers that quote on top). */
void gtr_name_pieces(const char *s, size_t n, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

/* Decodes an escaped name in place; returns its length in bytes. */
size_t gtr_name_unescape(char *s);

#endif
