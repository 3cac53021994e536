/*
 * core/report/loss.c: what a partial or lenient read left out, in words, for
 * the reports and the command line. The decoders fill a gtr_loss; this
 * only describes one.
 */
#include "core/report/report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void ms(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%.3f ms", (double)ns / 1e6);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* " between A and B" for an item with times, else "". */
static void span(char *buf, size_t cap, const gtr_loss_item *it)
{
	char a[32], b[32];
	buf[0] = 0;
	if (!it->has_time)
		return;
	ms(a, sizeof a, it->from_ns);
	ms(b, sizeof b, it->to_ns);
	if (it->from_ns == it->to_ns)
		snprintf(buf, cap, " at %s", a);
	else
		snprintf(buf, cap, " between %s and %s", a, b);
}

size_t gtr_loss_lines(const gtr_loss *l, char lines[][GTR_LOSS_LINE], size_t max)
{
	size_t n = 0;
	char t[96];
#define LINE(...) (n < max ? (void)snprintf(lines[n++], GTR_LOSS_LINE, __VA_ARGS__) : (void)0)
	if (l->version_found)
		LINE("a go 1.%d trace, newer than any gtr knows: read as go 1.%d, the newest; what a newer "
		     "Go changed may be misread",
		     l->version_found, l->version_read);
	if (l->no_freq)
		LINE("times are clock ticks, not nanoseconds (one tick is shown as 1 ns): the "
		     "Frequency event, written when tracing stops, was cut off; compare times with "
		     "each other only");
	if (l->truncated) {
		char after[160] = "";
		if (l->truncated_after_ns >= 0) {
			ms(t, sizeof t, (uint64_t)l->truncated_after_ns);
			snprintf(after, sizeof after, "; events after %s may be missing", t);
		}
		char what[64] = "";
		if (l->truncated_batches)
			snprintf(what, sizeof what, " (%llu %s)", (unsigned long long)l->truncated_batches,
				 plural(l->truncated_batches, "batch", "batches"));
		if (l->truncated_bytes)
			LINE("truncated at byte %llu: the last %llu bytes%s were not read%s (%s)",
			     (unsigned long long)l->truncated_at, (unsigned long long)l->truncated_bytes,
			     what, after, l->truncated_why);
		else
			LINE("incomplete: the trace ends at byte %llu without what closes it%s (%s)",
			     (unsigned long long)l->truncated_at, after, l->truncated_why);
	}
	if (l->generations.count)
		LINE("skipped %llu %s without a frequency or clock, %llu bytes (first at byte %llu: %s)",
		     (unsigned long long)l->generations.count,
		     plural(l->generations.count, "generation", "generations"),
		     (unsigned long long)l->generations.bytes,
		     (unsigned long long)l->generations.first_off, l->generations.why);
	if (l->batches.count) {
		span(t, sizeof t, &l->batches);
		LINE("skipped %llu broken %s, %llu bytes%s (first at byte %llu: %s)",
		     (unsigned long long)l->batches.count, plural(l->batches.count, "batch", "batches"),
		     (unsigned long long)l->batches.bytes, t, (unsigned long long)l->batches.first_off,
		     l->batches.why);
	}
	if (l->garbage.count)
		LINE("skipped %llu bytes in %llu %s where a batch should start (first at byte %llu: %s)",
		     (unsigned long long)l->garbage.bytes, (unsigned long long)l->garbage.count,
		     plural(l->garbage.count, "place", "places"),
		     (unsigned long long)l->garbage.first_off, l->garbage.why);
	if (l->events.count) {
		span(t, sizeof t, &l->events);
		LINE("dropped %llu %s that could not be ordered%s (first at byte %llu: %s)",
		     (unsigned long long)l->events.count, plural(l->events.count, "event", "events"), t,
		     (unsigned long long)l->events.first_off, l->events.why);
	}
	if (l->forced.count) {
		span(t, sizeof t, &l->forced);
		LINE("let %llu %s through whose cause was lost, as if it had happened%s (first at "
		     "byte %llu: %s)",
		     (unsigned long long)l->forced.count, plural(l->forced.count, "event", "events"),
		     t, (unsigned long long)l->forced.first_off, l->forced.why);
	}
	if (l->refs.count) {
		span(t, sizeof t, &l->refs);
		LINE("read %llu %s to missing strings or stacks as none%s (first at byte %llu: %s)",
		     (unsigned long long)l->refs.count, plural(l->refs.count, "reference", "references"),
		     t, (unsigned long long)l->refs.first_off, l->refs.why);
	}
#undef LINE
	return n;
}

uint64_t gtr_loss_bytes(const gtr_loss *l)
{
	return l->truncated_bytes + l->batches.bytes + l->generations.bytes + l->garbage.bytes;
}

void gtr_loss_summary(const gtr_loss *l, uint64_t file_bytes, char *buf, size_t cap)
{
	uint64_t bytes = gtr_loss_bytes(l);
	double pct = file_bytes ? 100.0 * (double)bytes / (double)file_bytes : 0;
	snprintf(buf, cap,
		 "partial result: %llu of %llu bytes (%.1f%%) not decoded, %llu batches and %llu "
		 "generations skipped, %llu events dropped, %llu let through, %llu references read "
		 "as none%s%s",
		 (unsigned long long)bytes, (unsigned long long)file_bytes, pct,
		 (unsigned long long)(l->truncated_batches + l->batches.count),
		 (unsigned long long)l->generations.count, (unsigned long long)l->events.count,
		 (unsigned long long)l->forced.count, (unsigned long long)l->refs.count,
		 l->no_freq ? ", times in ticks" : "",
		 l->version_found ? ", read with an older version's decoder" : "");
}

int gtr_partial_get(gtr_partial *p, const gtr_trace *t, const gtr_map *m)
{
	memset(p, 0, sizeof *p);
	gtr_trace_loss(t, &p->loss);
	uint64_t now, at;
	if (m && gtr_map_shrank(m, &now, &at)) {
		p->shrank = 1;
		p->size_was = m->size;
		p->size_now = now;
		p->zeros_from = at;
	}
	return p->shrank || gtr_loss_any(&p->loss);
}

int gtr_out_loss_json(gtr_out *o, const gtr_partial *p)
{
	if (!p || !(p->shrank || gtr_loss_any(&p->loss)))
		return 0;
	const gtr_loss *l = &p->loss;
	char lines[9][GTR_LOSS_LINE];
	size_t n = 0;
	if (p->shrank)
		snprintf(lines[n++], GTR_LOSS_LINE,
			 "the file shrank while it was read: now %llu bytes, was %llu; from byte %llu on, "
			 "zeros were read instead of the file",
			 (unsigned long long)p->size_now, (unsigned long long)p->size_was,
			 (unsigned long long)p->zeros_from);
	n += gtr_loss_lines(l, lines + n, 8);
	gtr_out_printf(o, "\"loss\":{\"truncated\":%s,", l->truncated ? "true" : "false");
	if (l->truncated)
		gtr_out_printf(o, "\"truncated_at\":%llu,\"truncated_after_ns\":%lld,",
			       (unsigned long long)l->truncated_at, (long long)l->truncated_after_ns);
	gtr_out_printf(o,
		       "\"bytes_not_decoded\":%llu,\"batches_skipped\":%llu,"
		       "\"generations_skipped\":%llu,\"events_dropped\":%llu,"
		       "\"events_forced\":%llu,\"references_missing\":%llu,"
		       "\"times_in_ticks\":%s,",
		       (unsigned long long)gtr_loss_bytes(l),
		       (unsigned long long)(l->truncated_batches + l->batches.count),
		       (unsigned long long)l->generations.count, (unsigned long long)l->events.count,
		       (unsigned long long)l->forced.count, (unsigned long long)l->refs.count,
		       l->no_freq ? "true" : "false");
	if (p->shrank)
		gtr_out_printf(o, "\"shrank\":{\"size_was\":%llu,\"size_now\":%llu,\"zeros_from\":%llu},",
			       (unsigned long long)p->size_was, (unsigned long long)p->size_now,
			       (unsigned long long)p->zeros_from);
	gtr_out_str(o, "\"lines\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			gtr_out_char(o, ',');
		gtr_out_json_str(o, (gtr_str){lines[i], strlen(lines[i])});
	}
	gtr_out_str(o, "]}");
	return 1;
}
