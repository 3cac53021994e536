/* core/report/views_report.c: tasks, regions, MMU and one goroutine, as text and JSON. */
#include "core/report/views_report.h"
#include "core/report/report.h"
#include "io/name.h"

#include <stdio.h>
#include <string.h>

enum { MAX_FRAMES = 256 };

static const char *family_name(const gtr_trace *t)
{
	return gtr_trace_get_info(t)->family == GTR_FAMILY_V1 ? "v1" : "v2";
}

static void out_ms(gtr_out *o, int64_t ns)
{
	if (ns < 0)
		gtr_out_str(o, "-");
	else
		gtr_out_printf(o, "%.6f ms", (double)ns / 1e6);
}

static void out_dur_cell(gtr_out *o, uint64_t ns, int width)
{
	char buf[48];
	gtr_fmt_dur(buf, sizeof buf, ns, " ", "\xc2\xb5s");
	/* "µ" is two bytes but one column. */
	int cols = (int)strlen(buf) - (strstr(buf, "\xc2\xb5") ? 1 : 0);
	gtr_out_str(o, buf);
	for (int i = cols; i < width; i++)
		gtr_out_char(o, ' ');
}

static void out_name(gtr_out *o, gtr_str s)
{
	if (!s.n)
		gtr_out_str(o, "(unknown)");
	else
		gtr_out_quoted(o, s);
}

static void frames_of(const gtr_trace *t, uint32_t table, uint64_t stack, gtr_frame *f, size_t *n)
{
	*n = 0;
	if (!stack)
		return;
	gtr_error e;
	gtr_error_clear(&e);
	if (gtr_trace_stack(t, table, stack, f, MAX_FRAMES, n, &e) < 0)
		*n = 0;
}

static void text_stack(const gtr_trace *t, gtr_out *o, uint32_t table, uint64_t stack, size_t depth,
		       const char *indent)
{
	gtr_frame f[MAX_FRAMES];
	size_t n;
	frames_of(t, table, stack, f, &n);
	if (n == 0) {
		gtr_out_str(o, indent);
		gtr_out_str(o, "(no stack in the trace)\n");
		return;
	}
	for (size_t i = 0; i < n && (!depth || i < depth); i++) {
		gtr_out_str(o, indent);
		if (f[i].func.n) {
			gtr_out_name(o, f[i].func.p, f[i].func.n);
			gtr_out_char(o, ' ');
			gtr_out_name(o, f[i].file.p, f[i].file.n);
			gtr_out_printf(o, ":%llu\n", (unsigned long long)f[i].line);
		} else
			gtr_out_printf(o, "0x%llx\n", (unsigned long long)f[i].pc);
	}
	if (depth && n > depth) {
		gtr_out_str(o, indent);
		gtr_out_printf(o, "... %zu more frames\n", n - depth);
	}
}

static void json_stack(const gtr_trace *t, gtr_out *o, uint32_t table, uint64_t stack)
{
	gtr_frame f[MAX_FRAMES];
	size_t n;
	frames_of(t, table, stack, f, &n);
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

/* The function a stack was taken in: its top frame, for one-line listings. */
static gtr_str top_func(const gtr_trace *t, uint32_t table, uint64_t stack)
{
	gtr_frame f[MAX_FRAMES];
	size_t n;
	frames_of(t, table, stack, f, &n);
	return n && f[0].func.n ? f[0].func : GTR_STR("?");
}

static void json_header(const gtr_trace *t, gtr_out *o, const char *schema, const char *file,
			uint64_t end_ns)
{
	const gtr_trace_info *in = gtr_trace_get_info(t);
	gtr_out_printf(o, "{\"schema\":\"%s\",\"trace\":{\"file\":", schema);
	gtr_out_json_str(o, (gtr_str){file ? file : "", file ? strlen(file) : 0});
	gtr_out_printf(o, ",\"version\":\"1.%d\",\"format\":\"%s\",\"span_ns\":%llu}", in->version,
		       family_name(t), (unsigned long long)end_ns);
}

static void text_header(const gtr_trace *t, gtr_out *o, const char *cmd, const char *file,
			uint64_t end_ns)
{
	const gtr_trace_info *in = gtr_trace_get_info(t);
	gtr_out_printf(o, "gtr %s: ", cmd);
	if (file)
		gtr_out_name(o, file, strlen(file));
	gtr_out_char(o, '\n');
	gtr_out_printf(o, "  trace       go 1.%d (%s format), ", in->version, family_name(t));
	gtr_out_dur(o, end_ns);
	gtr_out_char(o, '\n');
}

static void text_types(gtr_out *o, const char *what, const gtr_annot_type *v, size_t n)
{
	size_t w = strlen(what);
	for (size_t i = 0; i < n; i++) {
		size_t k = v[i].name.n ? v[i].name.n + 2 : 9;
		if (k > w)
			w = k > 60 ? 60 : k;
	}
	gtr_out_printf(o, "%-*s  %8s  %8s  %-11s %-11s %-11s %-11s %s\n", (int)w, what, "count",
		       "complete", "total", "p50", "p90", "p99", "max");
	for (size_t i = 0; i < n; i++) {
		const gtr_annot_type *ty = &v[i];
		char name[80];
		if (ty->name.n)
			snprintf(name, sizeof name, "\"%.*s\"", (int)(ty->name.n > 70 ? 70 : ty->name.n),
				 ty->name.p);
		else
			snprintf(name, sizeof name, "(unknown)");
		for (char *c = name; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = '?';
		gtr_out_printf(o, "%-*s  %8llu  %8llu  ", (int)w, name, (unsigned long long)ty->count,
			       (unsigned long long)ty->complete);
		if (!ty->complete) {
			gtr_out_str(o, "-\n");
			continue;
		}
		out_dur_cell(o, ty->total_ns, 11);
		gtr_out_char(o, ' ');
		out_dur_cell(o, ty->p50_ns, 11);
		gtr_out_char(o, ' ');
		out_dur_cell(o, ty->p90_ns, 11);
		gtr_out_char(o, ' ');
		out_dur_cell(o, ty->p99_ns, 11);
		gtr_out_char(o, ' ');
		gtr_out_dur(o, ty->max_ns);
		gtr_out_char(o, '\n');
	}
}

static void json_types(gtr_out *o, const gtr_annot_type *v, size_t n)
{
	gtr_out_char(o, '[');
	for (size_t i = 0; i < n; i++) {
		const gtr_annot_type *ty = &v[i];
		gtr_out_str(o, i ? ",{\"type\":" : "{\"type\":");
		gtr_out_json_str(o, ty->name);
		gtr_out_printf(o, ",\"count\":%llu,\"complete\":%llu,\"total_ns\":%llu,\"p50_ns\":%llu,"
				  "\"p90_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu}",
			       (unsigned long long)ty->count, (unsigned long long)ty->complete,
			       (unsigned long long)ty->total_ns, (unsigned long long)ty->p50_ns,
			       (unsigned long long)ty->p90_ns, (unsigned long long)ty->p99_ns,
			       (unsigned long long)ty->max_ns);
	}
	gtr_out_char(o, ']');
}

/* The logs of `task` among the kept ones: [*first, *first + n). */
static size_t logs_of(const gtr_annot *a, uint64_t task, size_t *first)
{
	size_t lo = 0, hi = a->nlogs_kept;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (a->logs[m].task < task)
			lo = m + 1;
		else
			hi = m;
	}
	size_t e = lo;
	while (e < a->nlogs_kept && a->logs[e].task == task)
		e++;
	*first = lo;
	return e - lo;
}

static size_t regions_of(const gtr_annot *a, uint64_t task, size_t *first)
{
	size_t lo = 0, hi = a->nregions_kept;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (a->regions[m].task < task)
			lo = m + 1;
		else
			hi = m;
	}
	size_t e = lo;
	while (e < a->nregions_kept && a->regions[e].task == task)
		e++;
	*first = lo;
	return e - lo;
}

static void text_log(gtr_out *o, const gtr_user_log *l, const char *indent)
{
	gtr_out_str(o, indent);
	out_ms(o, l->ts);
	gtr_out_printf(o, "  G%lld  ", (long long)l->g);
	if (l->category.n) {
		gtr_out_quoted(o, l->category);
		gtr_out_str(o, ": ");
	}
	gtr_out_quoted(o, l->message);
	gtr_out_char(o, '\n');
}

static void json_log(const gtr_trace *t, gtr_out *o, const gtr_user_log *l)
{
	gtr_out_printf(o, "{\"task\":%llu,\"ts_ns\":%lld,\"g\":%lld,\"category\":",
		       (unsigned long long)l->task, (long long)l->ts, (long long)l->g);
	gtr_out_json_str(o, l->category);
	gtr_out_str(o, ",\"message\":");
	gtr_out_json_str(o, l->message);
	gtr_out_str(o, ",\"stack\":");
	json_stack(t, o, l->table, l->stack);
	gtr_out_char(o, '}');
}

static const char *region_how(uint8_t how)
{
	switch (how) {
	case GTR_REGION_ENDED: return "ended";
	case GTR_REGION_EXITED: return "goroutine exited";
	default: return "open at the end of the trace";
	}
}

static void json_region(const gtr_trace *t, gtr_out *o, const gtr_region *r, size_t rankno)
{
	gtr_out_str(o, "{");
	if (rankno)
		gtr_out_printf(o, "\"rank\":%zu,", rankno);
	gtr_out_str(o, "\"type\":");
	gtr_out_json_str(o, r->type);
	int complete = r->start >= 0 && r->how != GTR_REGION_OPEN;
	gtr_out_printf(o, ",\"task\":%llu,\"g\":%lld,\"start_ns\":%lld,\"end_ns\":%lld,", (unsigned long long)r->task,
		       (long long)r->g, (long long)r->start, (long long)r->end);
	if (complete)
		gtr_out_printf(o, "\"duration_ns\":%lld,", (long long)(r->end - r->start));
	else
		gtr_out_str(o, "\"duration_ns\":null,");
	gtr_out_printf(o, "\"depth\":%u,\"ended\":\"%s\",\"stack\":", r->depth,
		       r->how == GTR_REGION_ENDED ? "end" : r->how == GTR_REGION_EXITED ? "exit" : "open");
	json_stack(t, o, r->table, r->stack);
	gtr_out_char(o, '}');
}

/* Leaves the object open when `open`, for the caller to add to it. */
static void json_task(const gtr_trace *t, gtr_out *o, const gtr_task *k, size_t rankno, int open)
{
	gtr_out_str(o, "{");
	if (rankno)
		gtr_out_printf(o, "\"rank\":%zu,", rankno);
	gtr_out_printf(o, "\"id\":%llu,\"parent\":%llu,\"type\":", (unsigned long long)k->id,
		       (unsigned long long)k->parent);
	gtr_out_json_str(o, k->type);
	gtr_out_printf(o, ",\"start_ns\":%lld,\"end_ns\":%lld,", (long long)k->start, (long long)k->end);
	if (k->start >= 0 && k->end >= 0)
		gtr_out_printf(o, "\"duration_ns\":%lld,", (long long)(k->end - k->start));
	else
		gtr_out_str(o, "\"duration_ns\":null,");
	gtr_out_printf(o, "\"g\":%lld,\"end_g\":%lld,\"logs\":%llu,\"regions\":%llu,\"subtasks\":%llu,"
			  "\"start_stack\":",
		       (long long)k->g, (long long)k->end_g, (unsigned long long)k->nlogs,
		       (unsigned long long)k->nregions, (unsigned long long)k->nchildren);
	json_stack(t, o, k->table, k->stack);
	gtr_out_str(o, ",\"end_stack\":");
	json_stack(t, o, k->end_table, k->end_stack);
	if (!open)
		gtr_out_char(o, '}');
}

static void text_task_line(gtr_out *o, const gtr_task *k)
{
	gtr_out_printf(o, "task %llu ", (unsigned long long)k->id);
	out_name(o, k->type);
	if (k->parent)
		gtr_out_printf(o, " (subtask of %llu)", (unsigned long long)k->parent);
	if (k->g >= 0)
		gtr_out_printf(o, "  G%lld", (long long)k->g);
	gtr_out_char(o, '\n');
}

static int tasks_json(const gtr_trace *t, const gtr_annot *a, const gtr_views_opts *opts, gtr_out *o)
{
	json_header(t, o, "gtr.tasks.v1", opts->file, a->end_ns);
	gtr_out_printf(o, ",\"tasks\":%llu,\"logs\":%llu,\"logs_without_task\":%llu,\"types\":",
		       (unsigned long long)a->ntasks, (unsigned long long)a->nlogs,
		       (unsigned long long)a->nlogs_notask);
	json_types(o, a->task_types, a->ntask_types);
	if (opts->task >= 0) {
		const gtr_task *k = gtr_annot_task(a, (uint64_t)opts->task);
		gtr_out_str(o, ",\"task\":");
		if (k)
			json_task(t, o, k, 0, 0);
		else
			gtr_out_str(o, "null");
		gtr_out_str(o, ",\"subtasks\":[");
		size_t c = 0;
		for (size_t i = 0; i < a->ntasks_kept; i++)
			if (a->tasks[i].parent == (uint64_t)opts->task)
				gtr_out_printf(o, "%s%llu", c++ ? "," : "", (unsigned long long)a->tasks[i].id);
		gtr_out_str(o, "],\"regions\":[");
		size_t first, n = regions_of(a, (uint64_t)opts->task, &first);
		for (size_t i = 0; i < n; i++) {
			if (i)
				gtr_out_char(o, ',');
			json_region(t, o, &a->regions[first + i], 0);
		}
		gtr_out_str(o, "],\"task_logs\":[");
		n = logs_of(a, (uint64_t)opts->task, &first);
		for (size_t i = 0; i < n; i++) {
			if (i)
				gtr_out_char(o, ',');
			json_log(t, o, &a->logs[first + i]);
		}
		gtr_out_str(o, "]}\n");
		return 0;
	}
	gtr_out_str(o, ",\"top\":[");
	for (size_t i = 0; i < a->ntop_tasks; i++) {
		const gtr_task *k = &a->top_tasks[i];
		if (i)
			gtr_out_char(o, ',');
		json_task(t, o, k, i + 1, 1);
		gtr_out_str(o, ",\"task_logs\":[");
		size_t first, n = logs_of(a, k->id, &first);
		for (size_t j = 0; j < n; j++) {
			if (j)
				gtr_out_char(o, ',');
			json_log(t, o, &a->logs[first + j]);
		}
		gtr_out_str(o, "]}");
	}
	gtr_out_str(o, "]}\n");
	return 0;
}

int gtr_report_tasks(const gtr_trace *t, const gtr_annot *a, const gtr_views_opts *opts, gtr_out *o,
		     gtr_error *err)
{
	(void)err;
	if (opts->json)
		return tasks_json(t, a, opts, o);
	size_t depth = opts->stack_depth;
	text_header(t, o, "tasks", opts->file, a->end_ns);
	uint64_t complete = 0;
	for (size_t i = 0; i < a->ntask_types; i++)
		complete += a->task_types[i].complete;
	gtr_out_printf(o, "  tasks       %llu (%llu complete), %zu types; %llu logs (%llu outside tasks)\n\n",
		       (unsigned long long)a->ntasks, (unsigned long long)complete, a->ntask_types,
		       (unsigned long long)a->nlogs, (unsigned long long)a->nlogs_notask);
	if (opts->task >= 0) {
		const gtr_task *k = gtr_annot_task(a, (uint64_t)opts->task);
		if (!k) {
			gtr_out_printf(o, "task %lld: not in the trace\n", (long long)opts->task);
			return 0;
		}
		text_task_line(o, k);
		gtr_out_str(o, "    from ");
		out_ms(o, k->start);
		gtr_out_str(o, " to ");
		out_ms(o, k->end);
		if (k->start >= 0 && k->end >= 0) {
			gtr_out_str(o, ", ");
			gtr_out_dur(o, (uint64_t)(k->end - k->start));
		} else {
			gtr_out_str(o, k->start < 0 ? ", begun before the trace" : ", not ended in the trace");
		}
		if (k->end_g >= 0)
			gtr_out_printf(o, ", ended by G%lld", (long long)k->end_g);
		gtr_out_char(o, '\n');
		if (k->stack) {
			gtr_out_str(o, "    begun at:\n");
			text_stack(t, o, k->table, k->stack, depth, "        ");
		}
		size_t c = 0;
		for (size_t i = 0; i < a->ntasks_kept; i++)
			if (a->tasks[i].parent == k->id)
				gtr_out_printf(o, "%s%llu", c++ ? ", " : "    subtasks: ",
					       (unsigned long long)a->tasks[i].id);
		if (c)
			gtr_out_char(o, '\n');
		size_t first, n = regions_of(a, k->id, &first);
		gtr_out_printf(o, "\nregions (%zu)\n", n);
		for (size_t i = 0; i < n; i++) {
			const gtr_region *r = &a->regions[first + i];
			gtr_out_str(o, "    ");
			out_ms(o, r->start);
			gtr_out_printf(o, "  G%lld  %*s", (long long)r->g, (int)(r->depth * 2), "");
			out_name(o, r->type);
			gtr_out_str(o, "  ");
			if (r->start >= 0 && r->how != GTR_REGION_OPEN)
				gtr_out_dur(o, (uint64_t)(r->end - r->start));
			else
				gtr_out_str(o, r->how == GTR_REGION_OPEN ? "open at the end" : "begun before the trace");
			if (r->how == GTR_REGION_EXITED)
				gtr_out_str(o, " (goroutine exited)");
			gtr_out_char(o, '\n');
		}
		n = logs_of(a, k->id, &first);
		gtr_out_printf(o, "\nlogs (%zu)\n", n);
		for (size_t i = 0; i < n; i++)
			text_log(o, &a->logs[first + i], "    ");
		return 0;
	}
	text_types(o, "task type", a->task_types, a->ntask_types);
	if (!a->ntop_tasks)
		return 0;
	gtr_out_printf(o, "\nlongest %zu complete task%s\n", a->ntop_tasks, a->ntop_tasks == 1 ? "" : "s");
	for (size_t i = 0; i < a->ntop_tasks; i++) {
		const gtr_task *k = &a->top_tasks[i];
		gtr_out_printf(o, "\n#%-3zu ", i + 1);
		gtr_out_dur(o, (uint64_t)(k->end - k->start));
		gtr_out_str(o, "  ");
		text_task_line(o, k);
		gtr_out_str(o, "    from ");
		out_ms(o, k->start);
		gtr_out_str(o, " to ");
		out_ms(o, k->end);
		if (k->end_g >= 0)
			gtr_out_printf(o, ", ended by G%lld", (long long)k->end_g);
		gtr_out_printf(o, "; %llu region%s, %llu log%s, %llu subtask%s\n", (unsigned long long)k->nregions,
			       k->nregions == 1 ? "" : "s", (unsigned long long)k->nlogs, k->nlogs == 1 ? "" : "s",
			       (unsigned long long)k->nchildren, k->nchildren == 1 ? "" : "s");
		gtr_out_str(o, "    begun at:\n");
		text_stack(t, o, k->table, k->stack, depth, "        ");
		size_t first, n = logs_of(a, k->id, &first);
		if (n && opts->logs) {
			gtr_out_str(o, "    logs:\n");
			for (size_t j = 0; j < n && j < opts->logs; j++)
				text_log(o, &a->logs[first + j], "        ");
			if (n > opts->logs)
				gtr_out_printf(o, "        ... %zu more (gtr tasks --task %llu)\n", n - opts->logs,
					       (unsigned long long)k->id);
		}
	}
	return 0;
}

int gtr_report_regions(const gtr_trace *t, const gtr_annot *a, const gtr_views_opts *opts,
		       gtr_out *o, gtr_error *err)
{
	(void)err;
	if (opts->json) {
		json_header(t, o, "gtr.regions.v1", opts->file, a->end_ns);
		gtr_out_printf(o, ",\"regions\":%llu,\"types\":", (unsigned long long)a->nregions);
		json_types(o, a->region_types, a->nregion_types);
		gtr_out_str(o, ",\"top\":[");
		for (size_t i = 0; i < a->ntop_regions; i++) {
			if (i)
				gtr_out_char(o, ',');
			json_region(t, o, &a->top_regions[i], i + 1);
		}
		gtr_out_str(o, "]}\n");
		return 0;
	}
	text_header(t, o, "regions", opts->file, a->end_ns);
	uint64_t complete = 0;
	for (size_t i = 0; i < a->nregion_types; i++)
		complete += a->region_types[i].complete;
	gtr_out_printf(o, "  regions     %llu (%llu complete), %zu types\n\n", (unsigned long long)a->nregions,
		       (unsigned long long)complete, a->nregion_types);
	text_types(o, "region type", a->region_types, a->nregion_types);
	if (!a->ntop_regions)
		return 0;
	gtr_out_printf(o, "\nlongest %zu complete region%s\n", a->ntop_regions, a->ntop_regions == 1 ? "" : "s");
	for (size_t i = 0; i < a->ntop_regions; i++) {
		const gtr_region *r = &a->top_regions[i];
		gtr_out_printf(o, "\n#%-3zu ", i + 1);
		gtr_out_dur(o, (uint64_t)(r->end - r->start));
		gtr_out_str(o, "  region ");
		out_name(o, r->type);
		gtr_out_printf(o, "  G%lld", (long long)r->g);
		if (r->task)
			gtr_out_printf(o, "  task %llu", (unsigned long long)r->task);
		if (r->depth)
			gtr_out_printf(o, "  (nested, depth %u)", r->depth);
		gtr_out_str(o, "\n    from ");
		out_ms(o, r->start);
		gtr_out_str(o, " to ");
		out_ms(o, r->end);
		gtr_out_printf(o, ", %s\n    begun at:\n", region_how(r->how));
		text_stack(t, o, r->table, r->stack, opts->stack_depth, "        ");
	}
	return 0;
}

static void flags_words(unsigned f, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", f & GTR_MMU_STW ? "stw," : "", f & GTR_MMU_BACKGROUND ? "background," : "",
		 f & GTR_MMU_ASSIST ? "assist," : "", f & GTR_MMU_SWEEP ? "sweep," : "",
		 f & GTR_MMU_PER_P ? "per-p," : "");
	size_t n = strlen(buf);
	if (n)
		buf[n - 1] = 0;
	else
		snprintf(buf, cap, "none");
}

int gtr_report_mmu(const gtr_trace *t, const gtr_mmu *m, const gtr_views_opts *opts, gtr_out *o,
		   gtr_error *err)
{
	(void)err;
	char fl[80];
	flags_words(m->flags, fl, sizeof fl);
	if (opts->json) {
		json_header(t, o, "gtr.mmu.v1", opts->file, m->end_ns);
		gtr_out_printf(o, ",\"flags\":[");
		const char *names[] = {"stw", "background", "assist", "sweep", "per-p"};
		for (unsigned i = 0, c = 0; i < 5; i++)
			if (m->flags & (1u << i))
				gtr_out_printf(o, "%s\"%s\"", c++ ? "," : "", names[i]);
		gtr_out_printf(o, "],\"view\":\"%s\",\"start_ns\":%llu,\"end_ns\":%llu,\"series\":%zu,"
				  "\"changes\":%zu,\"curve\":[",
			       m->flags & GTR_MMU_PER_P ? "per-p" : "system",
			       (unsigned long long)m->start_ns, (unsigned long long)m->end_ns, m->nseries,
			       m->changes);
		for (size_t i = 0; i < m->npoints; i++)
			gtr_out_printf(o, "%s{\"window_ns\":%llu,\"mmu\":%.9f,\"worst_start_ns\":%llu}",
				       i ? "," : "", (unsigned long long)m->points[i].window_ns, m->points[i].mmu,
				       (unsigned long long)m->points[i].worst_ns);
		gtr_out_str(o, "]}\n");
		return 0;
	}
	text_header(t, o, "mmu", opts->file, m->end_ns);
	gtr_out_printf(o, "  counts      %s (%s)\n", fl,
		       m->flags & GTR_MMU_PER_P ? "per P: a P doing GC work has none"
						: "system: the share of the Ps left to the program");
	if (!m->nseries) {
		gtr_out_str(o, "\nno utilization: the trace has no GOMAXPROCS event\n");
		return 0;
	}
	gtr_out_printf(o, "  function    %zu change%s over %zu series, from ", m->changes,
		       m->changes == 1 ? "" : "s", m->nseries);
	out_ms(o, (int64_t)m->start_ns);
	gtr_out_str(o, " to ");
	out_ms(o, (int64_t)m->end_ns);
	gtr_out_str(o, "\n\nwindow       MMU      worst window starts at\n");
	for (size_t i = 0; i < m->npoints; i++) {
		const gtr_mmu_point *p = &m->points[i];
		out_dur_cell(o, p->window_ns, 12);
		gtr_out_printf(o, " %6.2f%%  ", p->mmu * 100);
		out_ms(o, (int64_t)p->worst_ns);
		gtr_out_char(o, '\n');
	}
	return 0;
}

static const char *state_name(uint8_t s)
{
	return gtr_gstate_name((gtr_gstate)s);
}

static const char *type_name(const gtr_trace *t, uint16_t type)
{
	size_t n;
	const gtr_spec *specs = gtr_trace_specs(t, &n);
	return type < n && specs[type].name ? specs[type].name : "?";
}

static void slice_ending(gtr_out *o, const gtr_gslice *s)
{
	if (s->to == GTR_GS_RUNNING)
		gtr_out_str(o, "still running at the end of the trace");
	else if (s->to == GTR_GS_WAITING)
		gtr_out_printf(o, "blocked%s%.*s", s->reason.n ? " on " : "", (int)s->reason.n, s->reason.p);
	else if (s->to == GTR_GS_RUNNABLE)
		gtr_out_printf(o, "%.*s", (int)(s->reason.n ? s->reason.n : 8), s->reason.n ? s->reason.p : "stopped");
	else if (s->to == GTR_GS_SYSCALL)
		gtr_out_str(o, "syscall");
	else
		gtr_out_str(o, "exited");
}

static void json_goroutine(const gtr_trace *t, const gtr_goroutine *g, const gtr_views_opts *opts, gtr_out *o)
{
	json_header(t, o, "gtr.goroutine.v1", opts->file, g->end_ns);
	gtr_out_printf(o, ",\"g\":%lld,\"found\":%s", (long long)g->id, g->found ? "true" : "false");
	if (!g->found) {
		gtr_out_str(o, "}\n");
		return;
	}
	gtr_out_printf(o, ",\"created_ns\":%lld,\"creator\":%lld,\"first_ns\":%lld,\"exited_ns\":%lld,"
			  "\"creator_stack\":",
		       (long long)g->created_ns, (long long)g->creator, (long long)g->first_ns,
		       (long long)g->exited_ns);
	json_stack(t, o, g->create_table, g->creator_stack);
	gtr_out_str(o, ",\"start_stack\":");
	json_stack(t, o, g->create_table, g->start_stack);
	gtr_out_str(o, ",\"states_ns\":{");
	for (int s = GTR_GS_RUNNABLE, c = 0; s < GTR_GSTATES; s++)
		gtr_out_printf(o, "%s\"%s\":%llu", c++ ? "," : "", state_name((uint8_t)s),
			       (unsigned long long)g->state_ns[s]);
	gtr_out_printf(o, "},\"slices\":{\"count\":%llu,\"total_ns\":%llu,\"top\":[",
		       (unsigned long long)g->nslices, (unsigned long long)g->slices_ns);
	for (size_t i = 0; i < g->nslices_kept; i++) {
		const gtr_gslice *s = &g->slices[i];
		gtr_out_printf(o, "%s{\"start_ns\":%llu,\"end_ns\":%llu,\"duration_ns\":%llu,\"p\":%lld,"
				  "\"end_state\":\"%s\",\"reason\":",
			       i ? "," : "", (unsigned long long)s->start, (unsigned long long)s->end,
			       (unsigned long long)(s->end - s->start), (long long)s->p, state_name(s->to));
		gtr_out_json_str(o, s->reason);
		gtr_out_char(o, '}');
	}
	gtr_out_str(o, "]},\"blocks\":[");
	for (size_t i = 0; i < g->nblocks; i++) {
		const gtr_gblock *b = &g->blocks[i];
		gtr_out_printf(o, "%s{\"state\":\"%s\",\"reason\":", i ? "," : "", state_name(b->state));
		gtr_out_json_str(o, b->reason);
		gtr_out_printf(o, ",\"count\":%llu,\"total_ns\":%llu,\"max_ns\":%llu,\"stack\":",
			       (unsigned long long)b->count, (unsigned long long)b->total_ns,
			       (unsigned long long)b->max_ns);
		json_stack(t, o, b->table, b->stack);
		gtr_out_char(o, '}');
	}
	gtr_out_printf(o, "],\"transitions_total\":%llu,\"transition_counts\":[", (unsigned long long)g->ntrans);
	for (int f = 0, c = 0; f < GTR_GSTATES; f++)
		for (int to = 0; to < GTR_GSTATES; to++)
			if (g->pair[f][to])
				gtr_out_printf(o, "%s{\"from\":\"%s\",\"to\":\"%s\",\"count\":%llu}", c++ ? "," : "",
					       state_name((uint8_t)f), state_name((uint8_t)to),
					       (unsigned long long)g->pair[f][to]);
	gtr_out_str(o, "],\"transitions\":[");
	for (size_t i = 0; i < g->ntrans_kept; i++) {
		const gtr_gtrans *tr = &g->trans[i];
		gtr_out_printf(o, "%s{\"ts_ns\":%llu,\"event\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"p\":%lld,\"reason\":",
			       i ? "," : "", (unsigned long long)tr->ts, type_name(t, tr->type),
			       state_name(tr->from), state_name(tr->to), (long long)tr->p);
		gtr_out_json_str(o, tr->reason);
		gtr_out_str(o, ",\"stack\":");
		json_stack(t, o, tr->table, tr->stack);
		gtr_out_char(o, '}');
	}
	gtr_out_printf(o, "],\"regions\":%llu,\"logs\":%llu}\n", (unsigned long long)g->nregions,
		       (unsigned long long)g->nlogs);
}

int gtr_report_goroutine(const gtr_trace *t, const gtr_goroutine *g, const gtr_views_opts *opts,
			 gtr_out *o, gtr_error *err)
{
	(void)err;
	if (opts->json) {
		json_goroutine(t, g, opts, o);
		return 0;
	}
	size_t depth = opts->stack_depth;
	text_header(t, o, "goroutine", opts->file, g->end_ns);
	if (!g->found) {
		gtr_out_printf(o, "\nG%lld: not in the trace\n", (long long)g->id);
		return 0;
	}
	gtr_out_printf(o, "\nG%lld", (long long)g->id);
	if (g->start_stack) {
		gtr_str fn = top_func(t, g->create_table, g->start_stack);
		gtr_out_char(o, ' ');
		gtr_out_name(o, fn.p, fn.n);
	}
	gtr_out_char(o, '\n');
	if (g->created_ns >= 0) {
		gtr_out_str(o, "  created     at ");
		out_ms(o, g->created_ns);
		if (g->creator >= 0)
			gtr_out_printf(o, " by G%lld", (long long)g->creator);
		gtr_out_str(o, ", at:\n");
		text_stack(t, o, g->create_table, g->creator_stack, depth, "        ");
	} else {
		gtr_out_str(o, "  created     before the trace began (first seen at ");
		out_ms(o, g->first_ns);
		gtr_out_str(o, ")\n");
	}
	gtr_out_str(o, "  ended       ");
	if (g->exited_ns >= 0) {
		gtr_out_str(o, "exited at ");
		out_ms(o, g->exited_ns);
	} else {
		gtr_out_str(o, "still alive at the end of the trace");
	}
	gtr_out_char(o, '\n');
	uint64_t total = 0;
	for (int s = 0; s < GTR_GSTATES; s++)
		total += g->state_ns[s];
	gtr_out_str(o, "\ntime in each state\n");
	for (int s = GTR_GS_RUNNABLE; s < GTR_GSTATES; s++) {
		gtr_out_printf(o, "  %-10s  ", state_name((uint8_t)s));
		out_dur_cell(o, g->state_ns[s], 12);
		gtr_out_printf(o, " %6.2f%%\n", total ? 100.0 * (double)g->state_ns[s] / (double)total : 0.0);
	}
	gtr_out_printf(o, "\non-processor slices: %llu, ", (unsigned long long)g->nslices);
	gtr_out_dur(o, g->slices_ns);
	gtr_out_str(o, " in all\n");
	for (size_t i = 0; i < g->nslices_kept; i++) {
		const gtr_gslice *s = &g->slices[i];
		gtr_out_printf(o, "  #%-3zu ", i + 1);
		out_dur_cell(o, s->end - s->start, 11);
		gtr_out_str(o, " from ");
		out_ms(o, (int64_t)s->start);
		if (s->p >= 0)
			gtr_out_printf(o, " on P%lld", (long long)s->p);
		gtr_out_str(o, ", ");
		slice_ending(o, s);
		gtr_out_char(o, '\n');
	}
	if (g->nblocks) {
		gtr_out_str(o, "\nwhere it waited (by total time)\n");
		for (size_t i = 0; i < g->nblocks; i++) {
			const gtr_gblock *b = &g->blocks[i];
			gtr_out_str(o, "  ");
			out_dur_cell(o, b->total_ns, 11);
			gtr_out_printf(o, " %llu x ", (unsigned long long)b->count);
			if (b->state == GTR_GS_SYSCALL)
				gtr_out_str(o, "syscall");
			else if (b->reason.n)
				gtr_out_name(o, b->reason.p, b->reason.n);
			else
				gtr_out_str(o, "blocked (no reason given)");
			gtr_out_str(o, ", longest ");
			gtr_out_dur(o, b->max_ns);
			gtr_out_str(o, ", at:\n");
			text_stack(t, o, b->table, b->stack, depth, "        ");
		}
	}
	if (g->nregions || g->nlogs)
		gtr_out_printf(o, "\nuser annotations: %llu regions, %llu logs (gtr regions, gtr tasks)\n",
			       (unsigned long long)g->nregions, (unsigned long long)g->nlogs);
	gtr_out_printf(o, "\ntransitions: %llu\n", (unsigned long long)g->ntrans);
	for (size_t i = 0; i < g->ntrans_kept; i++) {
		const gtr_gtrans *tr = &g->trans[i];
		gtr_out_str(o, "  ");
		out_ms(o, (int64_t)tr->ts);
		gtr_out_printf(o, "  %s->%s", state_name(tr->from), state_name(tr->to));
		if (tr->reason.n)
			gtr_out_printf(o, " (%.*s)", (int)tr->reason.n, tr->reason.p);
		gtr_out_printf(o, "  %s", type_name(t, tr->type));
		if (tr->p >= 0)
			gtr_out_printf(o, " P%lld", (long long)tr->p);
		gtr_out_char(o, '\n');
	}
	if (g->ntrans > g->ntrans_kept) {
		gtr_out_printf(o, "  ... %llu more (--transitions N shows more); all of them by kind:\n",
			       (unsigned long long)(g->ntrans - g->ntrans_kept));
		for (int f = 0; f < GTR_GSTATES; f++)
			for (int to = 0; to < GTR_GSTATES; to++)
				if (g->pair[f][to]) {
					char k[48];
					snprintf(k, sizeof k, "%s->%s", state_name((uint8_t)f), state_name((uint8_t)to));
					gtr_out_printf(o, "    %-24s %llu\n", k, (unsigned long long)g->pair[f][to]);
				}
	}
	return 0;
}
