/*
 * tests/fuzz/fuzz_trace.h: the body shared by fuzz_v1.c and fuzz_v2.c.
 *
 * Opens the input as a trace, strictly and then leniently, and when it
 * opens: reads every event with a gtr_reader, resolves every string and
 * stack they name, and counts the footprint. Anything may fail with an
 * error; nothing may crash, hang, leak or read out of bounds.
 */
#ifndef GTR_TESTS_FUZZ_TRACE_H
#define GTR_TESTS_FUZZ_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/trace/spec.h"
#include "core/trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_resolve(const gtr_trace *t, const gtr_event *ev)
{
	static gtr_frame frames[256];
	size_t n = 0, nspecs;
	const gtr_spec *specs = gtr_trace_specs(t, &nspecs);
	const gtr_spec *s = ev->type < nspecs ? &specs[ev->type] : NULL;
	gtr_error err;
	gtr_error_clear(&err);
	if (ev->stack && gtr_trace_stack(t, ev->table, ev->stack, frames, 256, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			/* Touch every byte the frame points at. */
			volatile unsigned sum = 0;
			for (size_t j = 0; j < frames[i].func.n; j++)
				sum += (unsigned char)frames[i].func.p[j];
			for (size_t j = 0; j < frames[i].file.n; j++)
				sum += (unsigned char)frames[i].file.p[j];
			(void)sum;
		}
	}
	for (unsigned i = 0; s && s->name && i < ev->nargs && i < s->nargs; i++) {
		size_t len = strlen(s->args[i]);
		if (len >= 7 && strcmp(s->args[i] + len - 7, "_string") == 0) {
			gtr_str str;
			if (gtr_trace_string(t, ev->table, ev->args[i], &str) == 0 && str.n) {
				volatile unsigned char c = (unsigned char)str.p[str.n - 1];
				(void)c;
			}
		}
	}
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
		const gtr_transition *tr = gtr_event_trans(ev, i);
		if (tr->reason.n) {
			volatile unsigned char c = (unsigned char)tr->reason.p[tr->reason.n - 1];
			(void)c;
		}
		if (tr->stack)
			gtr_trace_stack(t, ev->table, tr->stack, frames, 256, &n, &err);
	}
	if (ev->data.n) {
		volatile unsigned char c = (unsigned char)ev->data.p[ev->data.n - 1];
		(void)c;
	}
}

static void fuzz_one(const uint8_t *data, size_t size, unsigned flags)
{
	gtr_trace *t = NULL;
	gtr_error err;
	gtr_error_clear(&err);
	if (gtr_trace_open_ex(&t, data, size, NULL, flags, &err) < 0)
		return;
	gtr_footprint fp;
	gtr_error_clear(&err);
	gtr_trace_footprint(t, &fp, &err);
	gtr_reader *r = NULL;
	gtr_error_clear(&err);
	if (gtr_reader_open(&r, t, &err) == 0) {
		gtr_event ev;
		while (gtr_reader_next(r, &ev, &err) > 0)
			fuzz_resolve(t, &ev);
		gtr_reader_free(r);
	}
	gtr_loss loss;
	gtr_trace_loss(t, &loss);
	gtr_trace_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Inputs the other family's target covers are left to it. */
	int version;
	gtr_family family;
	if (gtr_detect(data, size, &version, &family, NULL) == 0 && family != FUZZ_FAMILY)
		return 0;
	/* The decoders read the span in place: give them exactly `size` bytes. */
	fuzz_one(data, size, 0);
	fuzz_one(data, size, GTR_OPEN_PARTIAL);
	fuzz_one(data, size, GTR_OPEN_LENIENT);
	return 0;
}

#endif
