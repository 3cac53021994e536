/* core/trace.c: detect, and dispatch to the format family. */
#include "trace_impl.h"

#include <stdlib.h>
#include <string.h>

static const int known_versions[] = {5, 7, 8, 9, 10, 11, 19, 21, 22, 23, 25, 26};

int gtr_detect(const uint8_t *d, size_t n, int *version, gtr_family *family, gtr_error *err)
{
	if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		return gtr_error_set(err, GTR_E_GZIP, 0,
				     "the input is gzip-compressed; decompress it first (gunzip)");
	static const char magic[] = "go 1.";
	if (n == 0)
		return gtr_error_set(err, GTR_E_NOTTRACE, 0, "empty input: not a Go execution trace");
	/* A file that ends while it still reads like a header was cut short. */
	size_t i = 0;
	for (; i < 5; i++) {
		if (i >= n)
			goto cut;
		if (d[i] != (uint8_t)magic[i])
			return gtr_error_set(err, GTR_E_NOTTRACE, i,
					     "not a Go execution trace: no \"go 1.N trace\" header");
	}
	int v = 0, digits = 0;
	while (i < n && i < 16 && d[i] >= '0' && d[i] <= '9' && digits < 4) {
		v = v * 10 + (d[i] - '0');
		i++;
		digits++;
	}
	static const char tail[] = " trace";
	int ok = digits > 0;
	for (size_t j = 0; ok && j < sizeof tail - 1; j++, i++) {
		if (i >= n)
			goto cut;
		ok = d[i] == (uint8_t)tail[j];
	}
	for (; ok && i < 16; i++) {
		if (i >= n)
			goto cut;
		ok = d[i] == 0;
	}
	if (!ok)
		return gtr_error_set(err, GTR_E_NOTTRACE, i - 1,
				     "not a Go execution trace: malformed \"go 1.N trace\" header");
	for (size_t k = 0; k < sizeof known_versions / sizeof known_versions[0]; k++) {
		if (known_versions[k] == v) {
			*version = v;
			*family = v >= 22 ? GTR_FAMILY_V2 : GTR_FAMILY_V1;
			return 0;
		}
	}
	return gtr_error_set(err, GTR_E_VERSION, 5,
			     "unsupported trace version go 1.%d (gtr reads go 1.%d to go 1.%d traces)", v,
			     GTR_VERSION_OLDEST, GTR_VERSION_NEWEST);
cut:
	return gtr_error_set(err, GTR_E_TRUNCATED, n,
			     "truncated trace: the file ends after %zu bytes, inside its 16-byte header", n);
}

int gtr_trace_open(gtr_trace **out, const uint8_t *data, size_t size, const gtr_kernels *k,
		   gtr_error *err)
{
	*out = NULL;
	int version;
	gtr_family family;
	int rc = gtr_detect(data, size, &version, &family, err);
	if (rc < 0)
		return rc;
	gtr_trace *t = calloc(1, sizeof *t);
	if (!t)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	t->data = data;
	t->size = size;
	if (k)
		t->kernels = *k;
	else
		gtr_kernels_init(&t->kernels, "scalar");
	t->info.version = version;
	t->info.family = family;
	t->info.bytes = size;
	t->specs = gtr_specs(version, &t->nspecs);
	rc = family == GTR_FAMILY_V1 ? gtr_v1_open(t, err) : gtr_v2_open(t, err);
	if (rc < 0) {
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void gtr_trace_free(gtr_trace *t)
{
	if (!t)
		return;
	if (t->info.family == GTR_FAMILY_V1)
		gtr_v1_free(t);
	else
		gtr_v2_free(t);
	free(t);
}

const gtr_trace_info *gtr_trace_get_info(const gtr_trace *t)
{
	return &t->info;
}

const gtr_spec *gtr_trace_specs(const gtr_trace *t, size_t *n)
{
	*n = t->nspecs;
	return t->specs;
}

const uint8_t *gtr_trace_data(const gtr_trace *t)
{
	return t->data;
}

int gtr_trace_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out)
{
	return t->info.family == GTR_FAMILY_V1 ? gtr_v1_string(t, table, id, out)
					       : gtr_v2_string(t, table, id, out);
}

int gtr_trace_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames,
		    size_t max, size_t *n, gtr_error *err)
{
	*n = 0;
	return t->info.family == GTR_FAMILY_V1 ? gtr_v1_stack(t, table, id, frames, max, n, err)
					       : gtr_v2_stack(t, table, id, frames, max, n, err);
}

int gtr_trace_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err)
{
	memset(fp, 0, sizeof *fp);
	fp->total_bytes = t->size;
	return t->info.family == GTR_FAMILY_V1 ? gtr_v1_footprint(t, fp, err)
					       : gtr_v2_footprint(t, fp, err);
}

int gtr_reader_open(gtr_reader **out, const gtr_trace *t, gtr_error *err)
{
	*out = NULL;
	gtr_reader *r = calloc(1, sizeof *r);
	if (!r)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	r->t = t;
	int rc = t->info.family == GTR_FAMILY_V1 ? gtr_v1_reader_open(r, err)
						 : gtr_v2_reader_open(r, err);
	if (rc < 0) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int gtr_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err)
{
	return r->t->info.family == GTR_FAMILY_V1 ? gtr_v1_reader_next(r, ev, err)
						  : gtr_v2_reader_next(r, ev, err);
}

void gtr_reader_free(gtr_reader *r)
{
	if (!r)
		return;
	if (r->t->info.family == GTR_FAMILY_V1)
		gtr_v1_reader_free(r);
	else
		gtr_v2_reader_free(r);
	free(r);
}

const char *gtr_gstate_name(gtr_gstate s)
{
	static const char *const names[] = {"Undetermined", "NotExist", "Runnable",
					    "Running",      "Waiting",  "Syscall"};
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "Bad";
}

const char *gtr_pstate_name(gtr_pstate s)
{
	static const char *const names[] = {"Undetermined", "NotExist", "Running", "Idle"};
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "Bad";
}
