/* core/v2.c: placeholder until the v2 decoder lands. */
#include "trace_impl.h"
#include "spec_impl.h"

const gtr_spec *gtr_v2_specs(int version, size_t *n)
{
	(void)version;
	*n = 0;
	return NULL;
}

int gtr_v2_open(gtr_trace *t, gtr_error *err)
{
	(void)t;
	return gtr_error_set(err, GTR_E_VERSION, 0, "v2 traces are not read yet");
}

void gtr_v2_free(gtr_trace *t) { (void)t; }

int gtr_v2_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out)
{
	(void)t; (void)table; (void)id; (void)out;
	return GTR_E_NOSTRING;
}

int gtr_v2_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err)
{
	(void)t; (void)table; (void)id; (void)frames; (void)max; (void)n; (void)err;
	return GTR_E_NOSTACK;
}

int gtr_v2_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err)
{
	(void)t; (void)fp; (void)err;
	return 0;
}

int gtr_v2_reader_open(gtr_reader *r, gtr_error *err) { (void)r; (void)err; return 0; }
int gtr_v2_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err) { (void)r; (void)ev; (void)err; return 0; }
void gtr_v2_reader_free(gtr_reader *r) { (void)r; }
