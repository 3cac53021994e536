/* core/trace/sniff.c: naming the common inputs that are not traces. */
#include "core/trace/sniff.h"

#include <string.h>

static int starts(const uint8_t *d, size_t n, const char *m, size_t k)
{
	return n >= k && memcmp(d, m, k) == 0;
}

/* One protobuf varint at *i, within n; 0 when there is none. */
static int varint(const uint8_t *d, size_t n, size_t *i, uint64_t *v)
{
	*v = 0;
	for (unsigned s = 0; s < 64 && *i < n; s += 7) {
		uint8_t b = d[(*i)++];
		*v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return 1;
	}
	return 0;
}

/*
 * A profile.proto (perftools.profiles.Profile): every top-level field is
 * one of its fields with that field's wire type, and lengths fit. The
 * first fields Go writes are sample_type and sample; a run of them that
 * parses is not an accident.
 */
static int is_pprof(const uint8_t *d, size_t n, size_t whole)
{
	/* Wire type of fields 1..15: 2 = length-delimited, 0 = varint. */
	static const int8_t wt[16] = {-1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 0, 0, 0, 2};
	size_t i = 0;
	int fields = 0;
	while (i < n && fields < 32) {
		uint64_t key, v;
		if (!varint(d, n, &i, &key))
			return 0;
		uint64_t f = key >> 3, w = key & 7;
		if (f == 0 || f > 15 || (int)w != wt[f])
			return 0;
		if (!varint(d, n, &i, &v))
			return 0;
		if (w == 2) {
			if (v > n - i) /* past what we look at: it must still fit the input */
				return fields >= 1 && v <= whole - i;
			i += (size_t)v;
		}
		fields++;
	}
	return fields >= 2 || (fields == 1 && i == n);
}

static int is_text(const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = d[i];
		if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || (c >= 0x20 && c < 0x7f))
			continue;
		if (c >= 0xc2 && c <= 0xf4) {
			/* A UTF-8 sequence: its continuation bytes. */
			size_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
			size_t j = 1;
			for (; j <= k && i + j < n; j++)
				if ((d[i + j] & 0xc0) != 0x80)
					return 0;
			i += j - 1;
			continue;
		}
		return 0;
	}
	return 1;
}

static int contains(const uint8_t *d, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(d + i, w, k) == 0)
			return 1;
	return 0;
}

const char *gtr_sniff(const uint8_t *d, size_t n)
{
	if (n == 0)
		return NULL;
	size_t look = n < 4096 ? n : 4096;
	if (starts(d, n, "\x1f\x8b", 2))
		return "this is gzip-compressed: decompress it first (gunzip)";
	if (starts(d, n, "\x28\xb5\x2f\xfd", 4))
		return "this is zstd-compressed: decompress it first (unzstd)";
	if (starts(d, n, "BZh", 3) && n >= 4 && d[3] >= '1' && d[3] <= '9')
		return "this is bzip2-compressed: decompress it first (bunzip2; gtr itself reads gzip "
		       "and zstd)";
	if (starts(d, n, "\xfd" "7zXZ\0", 6))
		return "this is xz-compressed: decompress it first (unxz; gtr itself reads gzip and zstd)";
	if (starts(d, n, "\x04\x22\x4d\x18", 4))
		return "this is lz4-compressed: decompress it first (unlz4; gtr itself reads gzip and zstd)";
	if (n >= 262 && memcmp(d + 257, "ustar", 5) == 0)
		return "this is a tar archive: extract the trace from it first (tar -xf)";
	if (starts(d, n, "PK\x03\x04", 4) || starts(d, n, "PK\x05\x06", 4))
		return "this is a zip archive: extract the trace from it first (unzip)";
	if (starts(d, n, "\x7f" "ELF", 4))
		return "this is an ELF binary (a compiled program): give the trace it wrote "
		       "(runtime/trace, go test -trace)";
	if (starts(d, n, "MZ", 2) || starts(d, n, "\xcf\xfa\xed\xfe", 4) || starts(d, n, "\xfe\xed\xfa\xcf", 4))
		return "this is an executable (a compiled program): give the trace it wrote "
		       "(runtime/trace, go test -trace)";
	size_t i = 0;
	while (i < look && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
		i++;
	if (i < look && (d[i] == '{' || d[i] == '[') && is_text(d, look)) {
		if (contains(d, look, "\"traceEvents\"") || contains(d, look, "\"ph\""))
			return "this is a JSON trace in the trace viewer's format (Chrome, Perfetto): gtr "
			       "reads the binary trace that runtime/trace writes";
		return "this is a JSON document";
	}
	if (i < look && d[i] == '<' && is_text(d, look)) {
		if (contains(d, look, "<html") || contains(d, look, "<HTML") || contains(d, look, "<!DOCTYPE"))
			return "this is an HTML page (a gtr report, or an error page from the server "
			       "the trace was fetched from?)";
		return "this is an XML or HTML document";
	}
	if (is_pprof(d, look, n))
		return "this is a pprof profile: use go tool pprof";
	if (is_text(d, look))
		return "this is a text file";
	return NULL;
}
