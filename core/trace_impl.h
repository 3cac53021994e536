/*
 * core/trace_impl.h: what core/trace.c shares with the format decoders
 * (core/v1*.c, core/v2*.c). Not part of the public API.
 */
#ifndef GTR_CORE_TRACE_IMPL_H
#define GTR_CORE_TRACE_IMPL_H

#include "trace.h"

struct gtr_trace {
	const uint8_t *data;
	size_t size;
	gtr_kernels kernels;
	gtr_trace_info info;
	const gtr_spec *specs;
	size_t nspecs;
	void *impl; /* the family's index, owned */
};

struct gtr_reader {
	const gtr_trace *t;
	void *impl; /* the family's reader state, owned */
};

/*
 * Each family implements the same hooks. `open` fills t->impl and
 * t->info (everything but version, family and bytes, which are set
 * before it is called) and must free what it allocated on failure.
 */
int gtr_v1_open(gtr_trace *t, gtr_error *err);
void gtr_v1_free(gtr_trace *t);
int gtr_v1_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out);
int gtr_v1_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err);
int gtr_v1_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err);
int gtr_v1_reader_open(gtr_reader *r, gtr_error *err);
int gtr_v1_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err);
void gtr_v1_reader_free(gtr_reader *r);

int gtr_v2_open(gtr_trace *t, gtr_error *err);
void gtr_v2_free(gtr_trace *t);
int gtr_v2_string(const gtr_trace *t, uint32_t table, uint64_t id, gtr_str *out);
int gtr_v2_stack(const gtr_trace *t, uint32_t table, uint64_t id, gtr_frame *frames, size_t max,
		 size_t *n, gtr_error *err);
int gtr_v2_footprint(const gtr_trace *t, gtr_footprint *fp, gtr_error *err);
int gtr_v2_reader_open(gtr_reader *r, gtr_error *err);
int gtr_v2_reader_next(gtr_reader *r, gtr_event *ev, gtr_error *err);
void gtr_v2_reader_free(gtr_reader *r);

#endif
