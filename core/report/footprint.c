/* core/report/footprint.c: `gtr footprint`. */
#include "core/report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
	char name[48];
	uint64_t count, bytes;
} row;

static int by_bytes(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Columns padded like Go's tabwriter(minwidth 3, padding 2). */
static void cell(gtr_out *o, const char *s, int width, int last)
{
	gtr_out_str(o, s);
	if (last)
		return;
	int pad = width - (int)strlen(s);
	for (int i = 0; i < pad; i++)
		gtr_out_char(o, ' ');
}

int gtr_report_footprint(const gtr_trace *t, gtr_out *o, gtr_error *err)
{
	gtr_footprint fp;
	int rc = gtr_trace_footprint(t, &fp, err);
	if (rc < 0)
		return rc;
	size_t nspecs;
	const gtr_spec *specs = gtr_trace_specs(t, &nspecs);
	row rows[256];
	int n = 0;
	for (int i = 0; i < 256; i++) {
		if (!fp.count[i] && !fp.bytes[i])
			continue;
		if ((size_t)i < nspecs && specs[i].name)
			snprintf(rows[n].name, sizeof rows[n].name, "%s", specs[i].name);
		else
			snprintf(rows[n].name, sizeof rows[n].name, "<unknown (%d)>", i);
		rows[n].count = fp.count[i];
		rows[n].bytes = fp.bytes[i];
		n++;
	}
	qsort(rows, (size_t)n, sizeof rows[0], by_bytes);

	char cells[257][5][48];
	snprintf(cells[0][0], 48, "Event");
	snprintf(cells[0][1], 48, "Bytes");
	snprintf(cells[0][2], 48, "%%");
	snprintf(cells[0][3], 48, "Count");
	snprintf(cells[0][4], 48, "%%");
	double total = fp.total_bytes ? (double)fp.total_bytes : 1;
	double events = fp.events ? (double)fp.events : 1;
	for (int i = 0; i < n; i++) {
		memcpy(cells[i + 1][0], rows[i].name, sizeof rows[i].name);
		snprintf(cells[i + 1][1], 48, "%llu", (unsigned long long)rows[i].bytes);
		snprintf(cells[i + 1][2], 48, "%.2f%%", (double)rows[i].bytes / total * 100);
		snprintf(cells[i + 1][3], 48, "%llu", (unsigned long long)rows[i].count);
		snprintf(cells[i + 1][4], 48, "%.2f%%", (double)rows[i].count / events * 100);
	}
	int width[5];
	for (int c = 0; c < 5; c++) {
		width[c] = 3;
		for (int r = 0; r <= n; r++) {
			int w = (int)strlen(cells[r][c]);
			if (w > width[c])
				width[c] = w;
		}
		width[c] += 2;
	}
	for (int r = 0; r <= n; r++) {
		for (int c = 0; c < 5; c++)
			cell(o, cells[r][c], width[c], c == 4);
		gtr_out_char(o, '\n');
		if (r == 0) {
			for (int c = 0; c < 5; c++)
				cell(o, "-", width[c], c == 4);
			gtr_out_char(o, '\n');
		}
	}
	return 0;
}
