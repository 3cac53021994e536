/* core/report/dump.c: `gtr dump`, every event or transition in time order. */
#include "core/analysis/engine.h"
#include "core/report/report.h"

#include <string.h>

#define MAX_FRAMES 128

void gtr_out_quoted(gtr_out *o, gtr_str s)
{
	static const char hex[] = "0123456789abcdef";
	gtr_out_char(o, '"');
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c == '"' || c == '\\') {
			gtr_out_char(o, '\\');
			gtr_out_char(o, (char)c);
		} else if (c >= 0x20 && c < 0x7f) {
			gtr_out_char(o, (char)c);
		} else {
			char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
			gtr_out_write(o, esc, 4);
		}
	}
	gtr_out_char(o, '"');
}

int gtr_report_stack(const gtr_trace *t, uint32_t table, uint64_t stack, gtr_out *o,
		     gtr_error *err)
{
	if (!stack)
		return 0;
	gtr_frame frames[MAX_FRAMES];
	size_t n = 0;
	int rc = gtr_trace_stack(t, table, stack, frames, MAX_FRAMES, &n, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		gtr_out_char(o, '\t');
		if (frames[i].func.n) {
			gtr_out_write(o, frames[i].func.p, frames[i].func.n);
			gtr_out_char(o, ' ');
			gtr_out_write(o, frames[i].file.p, frames[i].file.n);
			gtr_out_char(o, ':');
			gtr_out_u64(o, frames[i].line);
		} else {
			/* Go 1.5 traces carry PCs only. */
			gtr_out_printf(o, "0x%llx", (unsigned long long)frames[i].pc);
		}
		gtr_out_char(o, '\n');
	}
	return 0;
}

static void context(gtr_out *o, const char *key, int64_t v)
{
	gtr_out_str(o, key);
	if (v < 0)
		gtr_out_char(o, '-');
	else
		gtr_out_i64(o, v);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int print_event(const gtr_trace *t, const gtr_spec *spec, const gtr_event *ev, gtr_out *o,
		       gtr_error *err)
{
	gtr_out_u64(o, ev->ts);
	context(o, " P=", ev->p);
	context(o, " M=", ev->m);
	context(o, " G=", ev->g);
	gtr_out_char(o, ' ');
	gtr_out_str(o, spec && spec->name ? spec->name : "?");
	for (unsigned i = 0; i < ev->nargs; i++) {
		const char *name = spec && i < spec->nargs ? spec->args[i] : "arg";
		gtr_out_char(o, ' ');
		if (ends_with(name, "_string")) {
			gtr_out_write(o, name, strlen(name) - 7);
			gtr_out_char(o, '=');
			gtr_str s;
			if (gtr_trace_string(t, ev->table, ev->args[i], &s) < 0)
				return gtr_error_set(err, GTR_E_NOSTRING, ev->off,
						     "%s event refers to string %llu, which the trace does not have",
						     spec && spec->name ? spec->name : "an",
						     (unsigned long long)ev->args[i]);
			gtr_out_quoted(o, s);
		} else {
			gtr_out_str(o, name);
			gtr_out_char(o, '=');
			gtr_out_u64(o, ev->args[i]);
		}
	}
	if (ev->data.n) {
		gtr_out_str(o, " data=");
		gtr_out_quoted(o, ev->data);
	}
	gtr_out_char(o, '\n');
	return 0;
}

static void print_transition(const gtr_event *ev, const gtr_transition *tr, gtr_out *o)
{
	gtr_out_u64(o, ev->ts + tr->later);
	if (tr->res == GTR_RES_G) {
		gtr_out_str(o, " G=");
		gtr_out_i64(o, tr->id);
		gtr_out_char(o, ' ');
		gtr_out_str(o, gtr_gstate_name((gtr_gstate)tr->from));
		gtr_out_str(o, "->");
		gtr_out_str(o, gtr_gstate_name((gtr_gstate)tr->to));
	} else {
		gtr_out_str(o, " P=");
		gtr_out_i64(o, tr->id);
		gtr_out_char(o, ' ');
		gtr_out_str(o, gtr_pstate_name((gtr_pstate)tr->from));
		gtr_out_str(o, "->");
		gtr_out_str(o, gtr_pstate_name((gtr_pstate)tr->to));
	}
	gtr_out_str(o, " reason=");
	gtr_out_quoted(o, tr->reason);
	gtr_out_char(o, '\n');
}

static int involves(const gtr_event *ev, int64_t goid)
{
	if (ev->g == goid)
		return 1;
	for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++)
		if (gtr_event_trans(ev, i)->res == GTR_RES_G && gtr_event_trans(ev, i)->id == goid)
			return 1;
	return 0;
}

typedef struct dumper {
	const gtr_trace *t;
	const gtr_dump_opts *opts;
	gtr_out *o;
	const gtr_spec *specs;
	size_t nspecs;
	gtr_error err; /* a stack that could not be read */
} dumper;

static int dump_event(void *self, const gtr_event *ev)
{
	dumper *d = self;
	const gtr_dump_opts *opts = d->opts;
	int rc = 0;
	if (ev->ts < opts->from || ev->ts > opts->to)
		return 0;
	if (opts->goid >= 0 && !involves(ev, opts->goid))
		return 0;
	if (opts->transitions) {
		for (unsigned i = 0, nt = gtr_event_ntrans(ev); i < nt; i++) {
			const gtr_transition *tr = gtr_event_trans(ev, i);
			if (opts->goid >= 0 && (tr->res != GTR_RES_G || tr->id != opts->goid))
				continue;
			print_transition(ev, tr, d->o);
			if (opts->stacks)
				rc = gtr_report_stack(d->t, ev->table, ev->stack, d->o, &d->err);
		}
	} else {
		const gtr_spec *spec = ev->type < d->nspecs ? &d->specs[ev->type] : NULL;
		rc = print_event(d->t, spec, ev, d->o, &d->err);
		if (rc == 0 && opts->stacks)
			rc = gtr_report_stack(d->t, ev->table, ev->stack, d->o, &d->err);
	}
	if (rc < 0)
		return rc;
	/* The reader of the output went away (EPIPE): stop decoding. */
	return d->o->err ? GTR_SINK_STOP : 0;
}

int gtr_report_dump(const gtr_trace *t, const gtr_dump_opts *opts, gtr_out *o, gtr_error *err)
{
	dumper d = {.t = t, .opts = opts, .o = o};
	d.specs = gtr_trace_specs(t, &d.nspecs);
	gtr_error_clear(&d.err);
	gtr_sink sk = {.self = &d, .on_event = dump_event};
	int rc = gtr_engine_run(t, &sk, 1, &(gtr_engine_opts){.jobs = opts->jobs}, NULL, err);
	if (rc < 0 && d.err.code != GTR_OK && err)
		*err = d.err;
	return rc < 0 ? rc : 0;
}
