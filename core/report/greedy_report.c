/* core/report/greedy_report.c: `gtr greedy` as text and as JSON. */
#include "core/report/report.h"
#include "core/base/sort.h"
#include "io/name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 128

/* JSON quoting of a piece of a name already escaped by io/name.h (no control characters left). */
static void json_piece(void *ctx, const char *p, size_t n)
{
	gtr_out *o = ctx;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\')
			gtr_out_char(o, '\\');
		gtr_out_char(o, p[i]);
	}
}

void gtr_out_json_str(gtr_out *o, gtr_str s)
{
	/* Names that are not UTF-8 text (file names, strings of a damaged
	 * trace) would make the JSON invalid: io/name.h's escape first. */
	gtr_out_char(o, '"');
	gtr_name_pieces(s.p, s.n, json_piece, o);
	gtr_out_char(o, '"');
}

void gtr_fmt_dur(char *buf, size_t cap, uint64_t ns, const char *sep, const char *micro)
{
	if (ns < 1000)
		snprintf(buf, cap, "%llu%sns", (unsigned long long)ns, sep);
	else if (ns < 1000000)
		snprintf(buf, cap, "%.1f%s%s", (double)ns / 1e3, sep, micro);
	else if (ns < 1000000000)
		snprintf(buf, cap, "%.3f%sms", (double)ns / 1e6, sep);
	else
		snprintf(buf, cap, "%.3f%ss", (double)ns / 1e9, sep);
}

void gtr_out_dur(gtr_out *o, uint64_t ns)
{
	char buf[48];
	gtr_fmt_dur(buf, sizeof buf, ns, " ", "\xc2\xb5s");
	gtr_out_str(o, buf);
}

static void out_ms(gtr_out *o, uint64_t ns)
{
	gtr_out_printf(o, "%.6f ms", (double)ns / 1e6);
}

static const char *spec_name(const gtr_trace *t, uint16_t type)
{
	size_t n;
	const gtr_spec *specs = gtr_trace_specs(t, &n);
	return type < n && specs[type].name ? specs[type].name : "?";
}

/* Frames of a stack; *n = 0 when the stack is unknown or cannot be read. */
static void frames_of(const gtr_trace *t, gtr_stackref s, gtr_frame *f, size_t *n)
{
	*n = 0;
	if (!s.id)
		return;
	gtr_error e;
	gtr_error_clear(&e);
	if (gtr_trace_stack(t, s.table, s.id, f, MAX_FRAMES, n, &e) < 0)
		*n = 0;
}

/*
 * The function a goroutine started in: its creation stack's top frame, or
 * else the outermost frame of a stack we have of it. Traces without
 * symbols (go 1.5) give a PC, written into buf.
 */
static gtr_str start_func(const gtr_trace *t, const gtr_slice *s, char buf[32])
{
	gtr_frame f[MAX_FRAMES];
	size_t n;
	const gtr_frame *pick = NULL;
	frames_of(t, s->create_stack, f, &n);
	if (n) {
		pick = &f[0];
	} else {
		frames_of(t, s->start_stack.id ? s->start_stack : s->end_stack, f, &n);
		if (n)
			pick = &f[n - 1];
	}
	if (!pick)
		return GTR_STR("?");
	if (pick->func.n)
		return pick->func;
	int k = snprintf(buf, 32, "0x%llx", (unsigned long long)pick->pc);
	return (gtr_str){buf, k > 0 ? (size_t)k : 0};
}

static gtr_str waiter_func(const gtr_trace *t, const gtr_stw_waiter *w, char buf[32])
{
	gtr_slice s = {.create_stack = w->create_stack, .end_stack = w->stack};
	return start_func(t, &s, buf);
}

/* How a slice ended, in words, written into buf. */
static gtr_str ending(uint8_t state, gtr_str reason, int truncated, char *buf, size_t cap)
{
	int r = (int)(reason.n > 200 ? 200 : reason.n), n;
	if (truncated == GTR_END_LOST)
		n = snprintf(buf, cap, "unknown: the event that ended it was lost; its goroutine was "
				       "last seen at the end shown");
	else if (truncated)
		n = snprintf(buf, cap, "still running when the trace ended (truncated)");
	else if (state == GTR_GS_RUNNABLE && reason.n == 5 && memcmp(reason.p, "yield", 5) == 0)
		n = snprintf(buf, cap, "yielded (Gosched)");
	else if (state == GTR_GS_RUNNABLE)
		n = snprintf(buf, cap, "%.*s", r ? r : 17, r ? reason.p : "stopped, runnable");
	else if (state == GTR_GS_WAITING)
		n = snprintf(buf, cap, "blocked%s%.*s", r ? " on " : "", r, reason.p);
	else if (state == GTR_GS_SYSCALL)
		n = snprintf(buf, cap, "syscall");
	else if (state == GTR_GS_NOTEXIST)
		n = snprintf(buf, cap, "exited");
	else
		n = snprintf(buf, cap, "%s%s%.*s", gtr_gstate_name((gtr_gstate)state), r ? " " : "", r,
			     reason.p);
	return (gtr_str){buf, n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1};
}

gtr_str gtr_fmt_ending(uint8_t state, gtr_str reason, int truncated, char *buf, size_t cap)
{
	return ending(state, reason, truncated, buf, cap);
}

static void out_ending(gtr_out *o, uint8_t state, gtr_str reason, int truncated)
{
	char buf[256];
	gtr_str s = ending(state, reason, truncated, buf, sizeof buf);
	gtr_out_write(o, s.p, s.n);
}

static void text_stack(const gtr_trace *t, gtr_out *o, gtr_stackref s, size_t depth,
		       const char *indent)
{
	gtr_frame f[MAX_FRAMES];
	size_t n;
	frames_of(t, s, f, &n);
	if (n == 0) {
		gtr_out_str(o, indent);
		gtr_out_str(o, "(no stack in the trace)\n");
		return;
	}
	for (size_t i = 0; i < n && (!depth || i < depth); i++) {
		gtr_out_str(o, indent);
		if (f[i].func.n)
			gtr_out_printf(o, "%.*s %.*s:%llu\n", (int)f[i].func.n, f[i].func.p,
				       (int)f[i].file.n, f[i].file.p, (unsigned long long)f[i].line);
		else
			gtr_out_printf(o, "0x%llx\n", (unsigned long long)f[i].pc);
	}
	if (depth && n > depth) {
		gtr_out_str(o, indent);
		gtr_out_printf(o, "... %zu more frames\n", n - depth);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_stw_dur(const void *a, const void *b)
{
	const gtr_stw *x = *(const gtr_stw *const *)a, *y = *(const gtr_stw *const *)b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;
	if ((x->truncated == GTR_END_LOST) != (y->truncated == GTR_END_LOST))
		return x->truncated == GTR_END_LOST ? 1 : -1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * byd[] in cmp_stw_dur's order, equal ones in the order they come (what
 * glibc's qsort, a merge sort, gave): stable sorts by start, then by
 * length, longest first, then lost ends last. Linear time.
 */
static int order_stw(const gtr_greedy *g, const gtr_stw **byd)
{
	size_t n = g->nstw;
	if (n > UINT32_MAX)
		return GTR_E_NOMEM;
	uint64_t *key = malloc(n * sizeof *key);
	uint32_t *order = malloc(n * sizeof *order);
	int rc = key && order ? 0 : GTR_E_NOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++)
		order[i] = (uint32_t)i;
	for (int pass = 0; rc == 0 && pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			const gtr_stw *p = &g->stw[i];
			key[i] = pass == 0   ? p->start
				 : pass == 1 ? UINT64_MAX - (p->end - p->start)
					     : p->truncated == GTR_END_LOST;
		}
		rc = gtr_sort_order(key, n, order);
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		byd[i] = &g->stw[order[i]];
	free(key);
	free(order);
	return rc;
}

typedef struct stw_stats {
	uint64_t p50, p99, max;
	const gtr_stw **byd; /* pauses, longest first */
} stw_stats;

static int stw_summary(const gtr_greedy *g, stw_stats *st)
{
	memset(st, 0, sizeof *st);
	if (!g->nstw)
		return 0;
	uint64_t *d = malloc(g->nstw * sizeof *d);
	st->byd = malloc(g->nstw * sizeof *st->byd);
	if (!d || !st->byd) {
		free(d);
		free(st->byd);
		st->byd = NULL;
		return GTR_E_NOMEM;
	}
	/* A pause whose end was lost has no length: it is listed last and
	 * left out of the percentiles. */
	size_t nd = 0;
	for (size_t i = 0; i < g->nstw; i++) {
		if (g->stw[i].truncated != GTR_END_LOST)
			d[nd++] = g->stw[i].end - g->stw[i].start;
		st->byd[i] = &g->stw[i];
	}
	if (gtr_sort_u64(d, nd) < 0)
		qsort(d, nd, sizeof *d, cmp_u64);
	if (order_stw(g, st->byd) < 0)
		qsort(st->byd, g->nstw, sizeof *st->byd, cmp_stw_dur);
	st->p50 = gtr_percentile(d, nd, 50);
	st->p99 = gtr_percentile(d, nd, 99);
	st->max = nd ? d[nd - 1] : 0;
	free(d);
	return 0;
}

/* ANSI attributes for the headings, when the report goes to a terminal. */
typedef struct paint {
	const char *bold, *rank, *warn, *off;
} paint;

static void text_report(const gtr_trace *t, const gtr_greedy *g, const stw_stats *st,
			const gtr_greedy_report_opts *opts, gtr_out *o)
{
	static const paint plain = {"", "", "", ""}, ansi = {"\033[1m", "\033[1;36m", "\033[1;31m", "\033[0m"};
	const paint *c = opts->color ? &ansi : &plain;
	char fnbuf[32];
	const gtr_trace_info *info = gtr_trace_get_info(t);
	size_t depth = opts->stack_depth;
	gtr_out_printf(o, "%sgtr greedy: ", c->bold);
	gtr_out_name(o, opts->file, strlen(opts->file));
	gtr_out_printf(o, "%s\n", c->off);
	gtr_out_printf(o, "  trace       go 1.%d (%s format), ", info->version,
		       info->family == GTR_FAMILY_V1 ? "v1" : "v2");
	gtr_out_dur(o, g->last_ts - g->first_ts);
	gtr_out_printf(o, ", %llu events\n", (unsigned long long)g->events);
	/* A partial read says so first: what follows covers only what was read. */
	gtr_loss loss;
	gtr_trace_loss(t, &loss);
	if (gtr_loss_any(&loss)) {
		char lines[8][GTR_LOSS_LINE], sum[400];
		size_t n = gtr_loss_lines(&loss, lines, 8);
		gtr_loss_summary(&loss, info->bytes, sum, sizeof sum);
		for (size_t i = 0; i < n; i++)
			gtr_out_printf(o, "  %s%s\n", i ? "            " : "partial     ", lines[i]);
		gtr_out_printf(o, "              %s\n", sum);
	}
	gtr_out_str(o, "  GOMAXPROCS  ");
	if (g->nprocs == 0) {
		gtr_out_str(o, "not recorded\n");
	} else {
		gtr_out_printf(o, "%llu", (unsigned long long)g->procs[0].procs);
		/* The first changes, then a count: a long trace may change it often. */
		size_t shown = 0, more = 0;
		for (size_t i = 1; i < g->nprocs; i++) {
			if (g->procs[i].procs == g->procs[i - 1].procs)
				continue;
			if (shown == 8) {
				more++;
				continue;
			}
			gtr_out_str(o, shown++ ? ", " : " (then ");
			gtr_out_printf(o, "%llu at ", (unsigned long long)g->procs[i].procs);
			out_ms(o, g->procs[i].ts);
		}
		if (more)
			gtr_out_printf(o, ", and %zu more changes; max %llu", more,
				       (unsigned long long)g->maxprocs);
		gtr_out_str(o, shown ? ")\n" : "\n");
	}
	gtr_out_printf(o, "  slices      %zu on-processor slices\n", g->nslices);
	gtr_out_str(o, "  Tmax_stw    ");
	gtr_out_dur(o, g->tmax_stw);
	gtr_out_printf(o, " = sum of the top %zu slices (N = GOMAXPROCS %s= %llu)%s\n", g->nest,
		       g->procs_in_force != g->maxprocs ? "in force longest " : "",
		       (unsigned long long)(g->procs_in_force ? g->procs_in_force : 1),
		       g->tmax_exact ? "" : ", a lower bound: more Ps than slices kept");
	for (size_t i = 0; i < g->nest && i < 16; i++) {
		const gtr_slice *s = &g->est[i];
		gtr_out_printf(o, "                #%zu G%lld ", i + 1, (long long)s->g);
		gtr_out_dur(o, gtr_slice_dur(s));
		gtr_str fn = start_func(t, s, fnbuf);
		gtr_out_printf(o, " %.*s%s\n", (int)fn.n, fn.p, s->truncated ? " (truncated)" : "");
	}
	if (g->nest > 16)
		gtr_out_printf(o, "                ... and %zu more\n", g->nest - 16);

	gtr_out_printf(o, "\n%stop %zu on-processor slices, longest first%s\n", c->bold, g->ntop, c->off);
	for (size_t i = 0; i < g->ntop; i++) {
		const gtr_slice *s = &g->top[i];
		uint64_t d = gtr_slice_dur(s);
		gtr_out_printf(o, "\n%s#%zu%s  %lluns -> %.6fs  G%lld on P", c->rank, i + 1, c->off, (unsigned long long)d,
			       (double)d / 1e9, (long long)s->g);
		if (s->p >= 0)
			gtr_out_i64(o, s->p);
		else
			gtr_out_char(o, '-');
		gtr_str fn = start_func(t, s, fnbuf);
		gtr_out_printf(o, "  %.*s\n", (int)fn.n, fn.p);
		gtr_out_str(o, "    from ");
		out_ms(o, s->start);
		gtr_out_str(o, " to ");
		out_ms(o, s->end);
		gtr_out_str(o, ", ended: ");
		out_ending(o, s->end_state, s->reason, s->truncated);
		gtr_out_char(o, '\n');
		gtr_out_str(o, "    events   ");
		for (size_t k = 0; k < s->nchain; k++) {
			gtr_out_str(o, spec_name(t, s->chain[k]));
			gtr_out_str(o, " -> ");
		}
		gtr_out_printf(o, "[%s ... %s]\n", spec_name(t, s->start_ev),
			       s->truncated == GTR_END_LOST ? "lost"
			       : s->truncated		    ? "end of trace"
							    : spec_name(t, s->end_ev));
		gtr_out_str(o, "    started running at:\n");
		text_stack(t, o, s->start_stack, depth, "        ");
		gtr_out_str(o, "    stopped at:\n");
		if (s->truncated == GTR_END_LOST)
			gtr_out_str(o, "        (lost)\n");
		else if (s->truncated)
			gtr_out_str(o, "        (still running)\n");
		else
			text_stack(t, o, s->end_stack, depth, "        ");
	}

	gtr_out_printf(o, "\n%sstop-the-world pauses measured:%s ", c->bold, c->off);
	if (g->nstw == 0) {
		gtr_out_str(o, "none in this trace\n");
	} else {
		gtr_out_printf(o, "%zu, p50 ", g->nstw);
		gtr_out_dur(o, st->p50);
		gtr_out_str(o, ", p99 ");
		gtr_out_dur(o, st->p99);
		gtr_out_str(o, ", max ");
		gtr_out_dur(o, st->max);
		gtr_out_char(o, '\n');
		size_t n = g->nstw < g->ntop ? g->nstw : g->ntop;
		if (!n)
			n = g->nstw < 10 ? g->nstw : 10;
		for (size_t i = 0; i < n; i++) {
			const gtr_stw *p = st->byd[i];
			gtr_out_printf(o, "\n%s#%zu%s  ", c->rank, i + 1, c->off);
			gtr_out_dur(o, p->end - p->start);
			gtr_out_printf(o, "  %.*s  at ", (int)p->kind.n, p->kind.p);
			out_ms(o, p->start);
			if (p->g >= 0)
				gtr_out_printf(o, ", stopped by G%lld", (long long)p->g);
			gtr_out_str(o, p->truncated == GTR_END_LOST
					       ? " (its end was lost: length unknown)\n"
				       : p->truncated ? " (the trace ends inside it)\n"
						      : "\n");
			size_t stopped = 0;
			for (size_t k = 0; k < p->nwaiters; k++)
				stopped += g->waiters[p->first_waiter + k].stopped != 0;
			if (stopped == 0) {
				gtr_out_str(o, "    no goroutine was running on another P when it began\n");
				continue;
			}
			gtr_out_printf(o, "    %zu goroutine%s still running on other Ps when it began:\n",
				       stopped, stopped == 1 ? " was" : "s were");
			for (size_t k = 0; k < p->nwaiters; k++) {
				const gtr_stw_waiter *w = &g->waiters[p->first_waiter + k];
				if (!w->stopped)
					continue;
				gtr_str fn = waiter_func(t, w, fnbuf);
				gtr_out_printf(o, "      G%lld on P%lld (%.*s) stopped after ", (long long)w->g,
					       (long long)w->p, (int)fn.n, fn.p);
				gtr_out_dur(o, w->stopped - p->start);
				gtr_out_str(o, ", ");
				out_ending(o, w->end_state, w->reason, 0);
				gtr_out_char(o, '\n');
			}
			const gtr_stw_waiter *cw = &g->waiters[p->first_waiter + (size_t)p->culprit];
			gtr_str fn = waiter_func(t, cw, fnbuf);
			gtr_out_printf(o, "    %smade the world wait:%s G%lld (%.*s), the last to stop, ",
				       c->warn, c->off, (long long)cw->g, (int)fn.n, fn.p);
			gtr_out_dur(o, cw->stopped - p->start);
			gtr_out_str(o, " after the pause began, at:\n");
			text_stack(t, o, cw->stack, depth, "        ");
		}
	}

	gtr_out_printf(o, "\n%sestimate against measurement:%s Tmax_stw ", c->bold, c->off);
	gtr_out_dur(o, g->tmax_stw);
	if (g->nstw == 0) {
		gtr_out_str(o, "; the trace records no stop-the-world pause to compare it with\n");
	} else {
		gtr_out_str(o, ", longest measured pause ");
		gtr_out_dur(o, st->max);
		if (st->max)
			gtr_out_printf(o, ": the estimate is %.1fx the worst pause seen\n",
				       (double)g->tmax_stw / (double)st->max);
		else
			gtr_out_str(o, "\n");
	}
}

static void json_stack(const gtr_trace *t, gtr_out *o, gtr_stackref s)
{
	gtr_frame f[MAX_FRAMES];
	size_t n;
	frames_of(t, s, f, &n);
	gtr_out_char(o, '[');
	for (size_t i = 0; i < n; i++) {
		gtr_out_str(o, i ? ",{\"func\":" : "{\"func\":");
		gtr_out_json_str(o, f[i].func);
		gtr_out_str(o, ",\"file\":");
		gtr_out_json_str(o, f[i].file);
		gtr_out_printf(o, ",\"line\":%llu,\"pc\":%llu}", (unsigned long long)f[i].line,
			       (unsigned long long)f[i].pc);
	}
	gtr_out_char(o, ']');
}

static void json_ending(gtr_out *o, uint8_t state, gtr_str reason, int truncated)
{
	char buf[256];
	gtr_out_json_str(o, ending(state, reason, truncated, buf, sizeof buf));
}

static void json_slice(const gtr_trace *t, gtr_out *o, const gtr_slice *s, size_t rank)
{
	char fnbuf[32];
	uint64_t d = gtr_slice_dur(s);
	gtr_out_printf(o, "{\"rank\":%zu,\"duration_ns\":%llu,\"duration_s\":%.9f,\"g\":%lld,\"p\":%lld,"
			  "\"start_ns\":%llu,\"end_ns\":%llu,\"truncated\":%s,\"end_state\":\"%s\",\"reason\":",
		       rank, (unsigned long long)d, (double)d / 1e9, (long long)s->g, (long long)s->p,
		       (unsigned long long)s->start, (unsigned long long)s->end,
		       s->truncated ? "true" : "false", gtr_gstate_name((gtr_gstate)s->end_state));
	gtr_out_json_str(o, s->reason);
	gtr_out_str(o, ",\"ended\":");
	json_ending(o, s->end_state, s->reason, s->truncated);
	gtr_out_str(o, ",\"function\":");
	gtr_out_json_str(o, start_func(t, s, fnbuf));
	gtr_out_printf(o, ",\"start_event\":\"%s\",\"end_event\":%s%s%s,\"events_before\":[",
		       spec_name(t, s->start_ev), s->truncated ? "" : "\"",
		       s->truncated ? "null" : spec_name(t, s->end_ev), s->truncated ? "" : "\"");
	for (size_t k = 0; k < s->nchain; k++)
		gtr_out_printf(o, "%s\"%s\"", k ? "," : "", spec_name(t, s->chain[k]));
	gtr_out_str(o, "],\"start_stack\":");
	json_stack(t, o, s->start_stack);
	gtr_out_str(o, ",\"end_stack\":");
	json_stack(t, o, s->end_stack);
	gtr_out_char(o, '}');
}

static void json_report(const gtr_trace *t, const gtr_greedy *g, const stw_stats *st,
			const gtr_greedy_report_opts *opts, gtr_out *o)
{
	char fnbuf[32];
	const gtr_trace_info *info = gtr_trace_get_info(t);
	gtr_out_str(o, "{\"schema\":\"gtr.greedy.v1\",\"trace\":{\"file\":");
	gtr_out_json_str(o, (gtr_str){opts->file, strlen(opts->file)});
	gtr_out_printf(o, ",\"version\":\"1.%d\",\"format\":\"%s\",\"span_ns\":%llu,\"events\":%llu},",
		       info->version, info->family == GTR_FAMILY_V1 ? "v1" : "v2",
		       (unsigned long long)(g->last_ts - g->first_ts), (unsigned long long)g->events);
	/* Only on a partial read, so that complete reads keep their output. */
	gtr_partial part;
	gtr_partial_get(&part, t, opts->input);
	if (gtr_out_loss_json(o, &part))
		gtr_out_char(o, ',');
	gtr_out_printf(o, "\"gomaxprocs\":{\"max\":%llu,\"in_force\":%llu,\"in_force_ns\":%llu,\"changes\":[",
		       (unsigned long long)g->maxprocs, (unsigned long long)g->procs_in_force,
		       (unsigned long long)g->procs_in_force_ns);
	for (size_t i = 0; i < g->nprocs; i++)
		gtr_out_printf(o, "%s{\"ts_ns\":%llu,\"procs\":%llu}", i ? "," : "",
			       (unsigned long long)g->procs[i].ts, (unsigned long long)g->procs[i].procs);
	gtr_out_printf(o, "]},\"slices_total\":%zu,", g->nslices);
	gtr_out_printf(o, "\"tmax_stw\":{\"ns\":%llu,\"n\":%zu,\"exact\":%s,\"slices\":[",
		       (unsigned long long)g->tmax_stw, g->nest, g->tmax_exact ? "true" : "false");
	for (size_t i = 0; i < g->nest; i++)
		gtr_out_printf(o, "%s{\"g\":%lld,\"duration_ns\":%llu,\"start_ns\":%llu}", i ? "," : "",
			       (long long)g->est[i].g, (unsigned long long)gtr_slice_dur(&g->est[i]),
			       (unsigned long long)g->est[i].start);
	gtr_out_str(o, "]},\"top\":[");
	for (size_t i = 0; i < g->ntop; i++) {
		if (i)
			gtr_out_char(o, ',');
		json_slice(t, o, &g->top[i], i + 1);
	}
	gtr_out_printf(o, "],\"stw\":{\"count\":%zu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,\"top\":[",
		       g->nstw, (unsigned long long)st->p50, (unsigned long long)st->p99,
		       (unsigned long long)st->max);
	size_t n = g->nstw < g->ntop ? g->nstw : g->ntop;
	for (size_t i = 0; i < n; i++) {
		const gtr_stw *p = st->byd[i];
		gtr_out_printf(o, "%s{\"rank\":%zu,\"kind\":", i ? "," : "", i + 1);
		gtr_out_json_str(o, p->kind);
		gtr_out_printf(o, ",\"start_ns\":%llu,\"end_ns\":%llu,\"duration_ns\":%llu,\"g\":%lld,\"p\":%lld,"
				  "\"truncated\":%s,%s\"waited_for\":[",
			       (unsigned long long)p->start, (unsigned long long)p->end,
			       (unsigned long long)(p->end - p->start), (long long)p->g, (long long)p->p,
			       p->truncated ? "true" : "false",
			       p->truncated == GTR_END_LOST ? "\"end_lost\":true," : "");
		size_t shown = 0;
		for (size_t k = 0; k < p->nwaiters; k++) {
			const gtr_stw_waiter *w = &g->waiters[p->first_waiter + k];
			if (!w->stopped)
				continue;
			gtr_out_printf(o, "%s{\"g\":%lld,\"p\":%lld,\"stopped_ns\":%llu,\"after_ns\":%llu,"
					  "\"made_world_wait\":%s,\"function\":",
				       shown++ ? "," : "", (long long)w->g, (long long)w->p,
				       (unsigned long long)w->stopped,
				       (unsigned long long)(w->stopped - p->start),
				       (int64_t)k == p->culprit ? "true" : "false");
			gtr_out_json_str(o, waiter_func(t, w, fnbuf));
			gtr_out_str(o, ",\"ended\":");
			json_ending(o, w->end_state, w->reason, 0);
			gtr_out_str(o, ",\"stack\":");
			json_stack(t, o, w->stack);
			gtr_out_char(o, '}');
		}
		gtr_out_str(o, "]}");
	}
	gtr_out_printf(o, "]},\"estimate_vs_measured\":{\"tmax_stw_ns\":%llu,\"max_stw_ns\":%llu,\"ratio\":",
		       (unsigned long long)g->tmax_stw, (unsigned long long)st->max);
	if (st->max)
		gtr_out_printf(o, "%.3f", (double)g->tmax_stw / (double)st->max);
	else
		gtr_out_str(o, "null");
	gtr_out_str(o, "}}\n");
}

int gtr_report_greedy(const gtr_trace *t, const gtr_greedy *g, const gtr_greedy_report_opts *opts,
		      gtr_out *o, gtr_error *err)
{
	stw_stats st;
	if (stw_summary(g, &st) < 0)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory");
	if (opts->json)
		json_report(t, g, &st, opts, o);
	else
		text_report(t, g, &st, opts, o);
	free(st.byd);
	return 0;
}
