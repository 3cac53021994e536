/*
 * tests/test_malformed.c: hostile input against the library, strict,
 * partial and lenient. Real traces of corpora/traces and tests/data (v1
 * and v2, several versions) are cut at every byte or at many offsets,
 * have bits flipped and bytes changed with a fixed seed, lengths and
 * counts set huge, varints made longer than 10 bytes, event types put
 * out of range, tables removed, batches swapped, generations stripped of
 * their frequency, and headers set to a newer Go. Every input runs
 * through the whole library: open, footprint, every event of a reader
 * with its strings and stacks resolved, and greedy. The contract: an
 * error is a known code with a one-line message and an offset inside
 * the input; what opens reads to the end or fails the same way; a
 * strict open loses nothing; a lenient open never refuses what a strict
 * one reads. The sanitizers (make asan, make ubsan) catch the rest.
 * tests/regress/ holds the inputs that once broke something; each runs
 * here in every mode.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/greedy.h"
#include "core/trace/spec.h"
#include "core/trace/trace.h"
#include "io/map.h"

static char *path_of(const char *rel)
{
	const char *root = getenv("GTR_ROOT");
	char *p = malloc(4096);
	snprintf(p, 4096, "%s/%s", root && *root ? root : ".", rel);
	return p;
}

/* Reads a file into memory (the decoders must not read past `n`). */
static uint8_t *load(const char *rel, size_t *n)
{
	char *p = path_of(rel);
	FILE *f = fopen(p, "rb");
	free(p);
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc(len > 0 ? (size_t)len : 1);
	*n = fread(d, 1, (size_t)len, f);
	fclose(f);
	return d;
}

static uint8_t *need(const char *rel, size_t *n)
{
	uint8_t *d = load(rel, n);
	if (!d)
		cr_skip_test("%s is missing", rel);
	return d;
}

/* An exact copy in its own allocation, so that any over-read is caught. */
static uint8_t *dup_n(const uint8_t *d, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	memcpy(c, d, n);
	return c;
}

static void check_error(const gtr_error *e, int rc, size_t n, const char *what)
{
	cr_assert(rc >= GTR_E_USAGE && rc < 0, "%s: unknown error code %d", what, rc);
	cr_assert(e->msg[0] != 0, "%s: error %d without a message", what, rc);
	cr_assert(strchr(e->msg, '\n') == NULL, "%s: a message over two lines: %s", what, e->msg);
	cr_assert(e->off <= n, "%s: error offset %llu past the end (%zu): %s", what,
		  (unsigned long long)e->off, n, e->msg);
}

typedef struct outcome {
	int open_rc, read_rc;
	uint64_t events;
	gtr_loss loss;
} outcome;

/* Runs the whole library over d[0..n) in one mode and checks the contract. */
static outcome exercise(const uint8_t *d, size_t n, unsigned flags, const char *what)
{
	outcome r;
	memset(&r, 0, sizeof r);
	gtr_trace *t = NULL;
	gtr_error e;
	gtr_error_clear(&e);
	r.open_rc = gtr_trace_open_ex(&t, d, n, NULL, flags, &e);
	if (r.open_rc < 0) {
		check_error(&e, r.open_rc, n, what);
		cr_assert_null(t);
		return r;
	}
	gtr_footprint fp;
	gtr_error_clear(&e);
	int rc = gtr_trace_footprint(t, &fp, &e);
	if (rc < 0)
		check_error(&e, rc, n, what);
	gtr_reader *rd = NULL;
	gtr_error_clear(&e);
	rc = gtr_reader_open(&rd, t, &e);
	cr_assert_eq(rc, 0, "%s: reader: %s", what, e.msg);
	gtr_event ev;
	static gtr_frame frames[128];
	while ((rc = gtr_reader_next(rd, &ev, &e)) > 0) {
		r.events++;
		size_t nf;
		gtr_error se;
		gtr_error_clear(&se);
		if (ev.stack && gtr_trace_stack(t, ev.table, ev.stack, frames, 128, &nf, &se) < 0)
			check_error(&se, se.code, n, what);
		for (unsigned i = 0; i < gtr_event_ntrans(&ev); i++) {
			gtr_str why = gtr_event_trans(&ev, i)->reason;
			if (why.n)
				cr_assert_not_null(why.p);
		}
	}
	r.read_rc = rc;
	if (rc < 0)
		check_error(&e, rc, n, what);
	/* A second reader meets the same end. */
	gtr_reader *again = NULL;
	gtr_error_clear(&e);
	cr_assert_eq(gtr_reader_open(&again, t, &e), 0);
	uint64_t count = 0;
	while ((rc = gtr_reader_next(again, &ev, &e)) > 0)
		count++;
	cr_assert_eq(count, r.events, "%s: a second reader read %llu events, the first %llu", what,
		     (unsigned long long)count, (unsigned long long)r.events);
	cr_assert_eq(rc, r.read_rc, "%s: a second reader ended with %d, the first %d", what, rc,
		     r.read_rc);
	gtr_reader_free(again);
	gtr_reader_free(rd);
	gtr_greedy *g = NULL;
	gtr_error_clear(&e);
	rc = gtr_greedy_run(t, 5, &g, &e);
	if (rc < 0)
		check_error(&e, rc, n, what);
	gtr_greedy_free(g);
	gtr_trace_loss(t, &r.loss);
	if (!(flags & (GTR_OPEN_PARTIAL | GTR_OPEN_LENIENT)))
		cr_assert(!gtr_loss_any(&r.loss), "%s: a strict read lost something", what);
	if (!(flags & GTR_OPEN_LENIENT))
		cr_assert(!r.loss.batches.count && !r.loss.garbage.count && !r.loss.generations.count &&
				  !r.loss.version_found,
			  "%s: a partial (not lenient) read skipped corrupt data", what);
	if (r.loss.truncated)
		cr_assert(r.loss.truncated_at <= n && r.loss.truncated_bytes == n - r.loss.truncated_at,
			  "%s: truncation at %llu, %llu bytes, in %zu", what,
			  (unsigned long long)r.loss.truncated_at,
			  (unsigned long long)r.loss.truncated_bytes, n);
	gtr_trace_free(t);
	return r;
}

/* All three modes; a lenient read never refuses what a strict one reads. */
static void exercise_all(const uint8_t *d, size_t n, const char *what)
{
	uint8_t *c = dup_n(d, n);
	outcome s = exercise(c, n, 0, what);
	outcome p = exercise(c, n, GTR_OPEN_PARTIAL, what);
	outcome l = exercise(c, n, GTR_OPEN_LENIENT, what);
	if (s.open_rc == 0 && s.read_rc == 0) {
		cr_assert(p.open_rc == 0 && p.read_rc == 0, "%s: partial refuses what strict reads", what);
		cr_assert_eq(p.events, s.events, "%s", what);
		cr_assert(l.open_rc == 0, "%s: lenient refuses what strict reads", what);
	}
	if (p.open_rc == 0 && p.read_rc == 0 && s.open_rc == 0)
		cr_assert_eq(p.events, s.events, "%s", what);
	free(c);
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* ------------------------------------------------------------------ */
/* Truncation. */

static void every_prefix(const char *rel)
{
	size_t n;
	uint8_t *d = need(rel, &n);
	char what[256];
	for (size_t cut = 0; cut < n; cut++) {
		snprintf(what, sizeof what, "%s cut at %zu", rel, cut);
		exercise_all(d, cut, what);
	}
	free(d);
}

Test(malformed, every_prefix_of_a_small_v1_trace, .timeout = 240)
{
	every_prefix("corpora/traces/timers-go1.19.trace");
}

Test(malformed, every_prefix_of_a_small_v2_trace, .timeout = 240)
{
	every_prefix("tests/data/multigen-go1.22.trace");
}

Test(malformed, every_prefix_of_a_small_go126_trace, .timeout = 240)
{
	every_prefix("tests/data/multigen-go1.26.trace");
}

Test(malformed, prefixes_of_large_traces, .timeout = 240)
{
	static const char *const traces[] = {
		"corpora/traces/gcpressure-go1.15.trace", "corpora/traces/gcpressure-go1.21.trace",
		"corpora/traces/gcpressure-go1.23.trace", "corpora/traces/gcpressure-go1.26.trace",
		"corpora/traces/greedy-coarse-go1.26.trace",
	};
	char what[256];
	for (size_t k = 0; k < sizeof traces / sizeof traces[0]; k++) {
		size_t n;
		uint8_t *d = load(traces[k], &n);
		if (!d)
			continue;
		rng_state = 0x9e3779b97f4a7c15ull + k;
		for (int i = 0; i < 60; i++) {
			size_t cut = i < 20 ? n * (size_t)i / 20 : 16 + rnd() % (n - 16);
			snprintf(what, sizeof what, "%s cut at %zu", traces[k], cut);
			exercise_all(d, cut, what);
		}
		free(d);
	}
}

/* A v2 trace cut inside its third generation keeps the first two whole. */
Test(malformed, truncated_v2_keeps_whole_generations)
{
	const char *names[] = {"tests/data/multigen-go1.22.trace", "tests/data/multigen-go1.26.trace"};
	for (int k = 0; k < 2; k++) {
		size_t n;
		uint8_t *d = need(names[k], &n);
		gtr_trace *full, *cut;
		gtr_error e;
		gtr_error_clear(&e);
		cr_assert_eq(gtr_trace_open(&full, d, n, NULL, &e), 0, "%s", e.msg);
		cr_assert_eq(gtr_trace_get_info(full)->generations, 3);
		size_t at = n - 200; /* inside the last generation's tables */
		uint8_t *c = dup_n(d, at);
		gtr_error_clear(&e);
		cr_assert_lt(gtr_trace_open(&cut, c, at, NULL, &e), 0, "strict refuses a cut trace");
		cr_assert_eq(e.code, GTR_E_TRUNCATED, "%s", e.msg);
		gtr_error_clear(&e);
		cr_assert_eq(gtr_trace_open_ex(&cut, c, at, NULL, GTR_OPEN_PARTIAL, &e), 0, "%s", e.msg);
		gtr_loss l;
		gtr_trace_loss(cut, &l);
		cr_assert(l.truncated);
		cr_assert_leq(l.truncated_at, at);
		cr_assert_geq(gtr_trace_get_info(cut)->generations, 2);
		/* The events of the whole generations are exactly the full trace's. */
		gtr_reader *ra, *rb;
		cr_assert_eq(gtr_reader_open(&ra, full, &e), 0);
		cr_assert_eq(gtr_reader_open(&rb, cut, &e), 0);
		gtr_event a, b;
		int syncs = 0;
		while (gtr_reader_next(rb, &b, &e) > 0) {
			cr_assert_eq(gtr_reader_next(ra, &a, &e), 1);
			if (b.table >= 2)
				break;
			cr_assert_eq(a.ts, b.ts, "%s: event at %llu", names[k], (unsigned long long)b.off);
			cr_assert_eq(a.type, b.type);
			cr_assert_eq(a.off, b.off);
			syncs += b.type == 50; /* the reader's Sync at each generation */
		}
		cr_assert_geq(syncs, 2);
		gtr_reader_free(ra);
		gtr_reader_free(rb);
		gtr_trace_free(cut);
		gtr_trace_free(full);
		free(c);
		free(d);
	}
}

/* ------------------------------------------------------------------ */
/* Random damage. */

static const char *const damage_traces[] = {
	"corpora/traces/churn-go1.15.trace",     "corpora/traces/syscalls-go1.19.trace",
	"corpora/traces/annotations-go1.21.trace", "tests/data/multigen-go1.22.trace",
	"corpora/traces/syscalls-go1.23.trace",  "corpora/traces/annotations-go1.25.trace",
	"tests/data/multigen-go1.26.trace",      "corpora/traces/timers-go1.27.trace",
};

static void damage(int kind, const char *tag, int rounds)
{
	char what[256];
	for (size_t k = 0; k < sizeof damage_traces / sizeof damage_traces[0]; k++) {
		size_t n;
		uint8_t *d = load(damage_traces[k], &n);
		if (!d || n <= 16) {
			free(d);
			continue;
		}
		rng_state = 0x2545f4914f6cdd1dull * (k + 1) + (uint64_t)kind;
		uint8_t *m = malloc(n);
		for (int i = 0; i < rounds; i++) {
			memcpy(m, d, n);
			int edits = 1 + (int)(rnd() % 8);
			for (int j = 0; j < edits; j++) {
				size_t at = 16 + rnd() % (n - 16);
				if (kind == 0)
					m[at] ^= (uint8_t)(1u << (rnd() % 8));
				else if (kind == 1)
					m[at] = (uint8_t)rnd();
				else
					m[at] = (uint8_t)(rnd() % 2 ? 0xff : 0x80 | (rnd() & 0x7f));
			}
			snprintf(what, sizeof what, "%s %s round %d", damage_traces[k], tag, i);
			exercise_all(m, n, what);
		}
		free(m);
		free(d);
	}
}

Test(malformed, bit_flips, .timeout = 240)
{
	damage(0, "bit flips", 60);
}

Test(malformed, byte_changes, .timeout = 240)
{
	damage(1, "byte changes", 60);
}

Test(malformed, high_bytes, .timeout = 240)
{
	/* 0x80..0xff bytes make varints long and lengths huge. */
	damage(2, "high bytes", 40);
}

/* ------------------------------------------------------------------ */
/* Targeted damage to v2 batch headers. */

typedef struct hdr {
	size_t off, data, len, gen_at, len_at, end;
	uint64_t gen;
	uint8_t first;
} hdr;

static int read_uv(const uint8_t *d, size_t n, size_t *p, uint64_t *v)
{
	*v = 0;
	for (unsigned s = 0; *p < n && s < 70; s += 7) {
		uint8_t b = d[(*p)++];
		*v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* The batch headers of a good v2 trace. */
static size_t v2_headers(const uint8_t *d, size_t n, hdr *h, size_t max)
{
	size_t k = 0, p = 16;
	while (p < n && k < max) {
		if (d[p] == 52) {
			p++;
			continue;
		}
		hdr x = {.off = p};
		p++;
		if (d[x.off] == 49)
			p++;
		uint64_t v;
		x.gen_at = p;
		read_uv(d, n, &p, &x.gen);
		read_uv(d, n, &p, &v);
		read_uv(d, n, &p, &v);
		x.len_at = p;
		read_uv(d, n, &p, &v);
		x.data = p;
		x.len = (size_t)v;
		x.first = v ? d[p] : 0;
		p += (size_t)v;
		x.end = p;
		h[k++] = x;
	}
	return k;
}

/* d with bytes [at, at + cut) replaced by `ins` (nins bytes). */
static uint8_t *splice(const uint8_t *d, size_t n, size_t at, size_t cut, const uint8_t *ins,
		       size_t nins, size_t *out_n)
{
	*out_n = n - cut + nins;
	uint8_t *m = malloc(*out_n ? *out_n : 1);
	memcpy(m, d, at);
	if (nins)
		memcpy(m + at, ins, nins);
	memcpy(m + at + nins, d + at + cut, n - at - cut);
	return m;
}

static size_t uv_len(const uint8_t *d, size_t at)
{
	size_t k = 0;
	while (d[at + k] & 0x80)
		k++;
	return k + 1;
}

Test(malformed, v2_header_damage, .timeout = 240)
{
	const char *names[] = {"tests/data/multigen-go1.22.trace", "tests/data/multigen-go1.26.trace",
			       "corpora/traces/syscalls-go1.23.trace"};
	static const uint8_t huge[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint8_t eleven[11] = {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t big[3] = {0x80, 0x80, 0x08}; /* 131072: over the batch maximum */
	char what[256];
	for (int k = 0; k < 3; k++) {
		size_t n;
		uint8_t *d = load(names[k], &n);
		if (!d)
			continue;
		hdr h[256];
		size_t nh = v2_headers(d, n, h, 256);
		cr_assert_gt(nh, 3);
		for (size_t i = 0; i < nh; i++) {
			size_t mn;
			uint8_t *m;
			struct {
				const char *tag;
				size_t at, cut;
				const uint8_t *ins;
				size_t nins;
			} cases[] = {
				{"huge length", h[i].len_at, uv_len(d, h[i].len_at), huge, 10},
				{"length over the maximum", h[i].len_at, uv_len(d, h[i].len_at), big, 3},
				{"11-byte generation varint", h[i].gen_at, uv_len(d, h[i].gen_at), eleven, 11},
				{"huge generation", h[i].gen_at, uv_len(d, h[i].gen_at), huge, 10},
				{"batch removed", h[i].off, h[i].end - h[i].off, NULL, 0},
				{"type out of range", h[i].off, 1, (const uint8_t *)"\xc8", 1},
				{"first event out of range", h[i].data, h[i].len ? 1 : 0, (const uint8_t *)"\x7f", 1},
			};
			for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
				m = splice(d, n, cases[c].at, cases[c].cut, cases[c].ins, cases[c].nins, &mn);
				snprintf(what, sizeof what, "%s batch %zu: %s", names[k], i, cases[c].tag);
				exercise_all(m, mn, what);
				free(m);
			}
		}
		free(d);
	}
}

/* Tables removed: strict refuses the references, lenient reads them as none. */
Test(malformed, v2_missing_tables)
{
	size_t n;
	uint8_t *d = need("tests/data/multigen-go1.26.trace", &n);
	hdr h[64];
	size_t nh = v2_headers(d, n, h, 64);
	for (uint8_t table = 2; table <= 4; table += 2) { /* Stacks, then Strings */
		/* Remove that table from every generation, last first. */
		uint8_t *m = dup_n(d, n);
		size_t mn = n;
		for (size_t i = nh; i-- > 0;) {
			if (h[i].first != table)
				continue;
			size_t nn;
			uint8_t *x = splice(m, mn, h[i].off, h[i].end - h[i].off, NULL, 0, &nn);
			free(m);
			m = x;
			mn = nn;
		}
		outcome s = exercise(m, mn, 0, "no tables, strict");
		cr_assert(s.open_rc < 0 || s.read_rc < 0, "strict reads a trace without its tables");
		outcome l = exercise(m, mn, GTR_OPEN_LENIENT, "no tables, lenient");
		cr_assert_eq(l.open_rc, 0);
		cr_assert_eq(l.read_rc, 0);
		cr_assert_gt(l.loss.refs.count, 0, "missing references are counted");
		cr_assert_gt(l.events, 100);
		free(m);
	}
	free(d);
}

/* A generation without its frequency: strict refuses it, lenient skips it. */
Test(malformed, v2_generation_without_frequency)
{
	const char *names[] = {"tests/data/multigen-go1.22.trace", "tests/data/multigen-go1.26.trace"};
	for (int k = 0; k < 2; k++) {
		size_t n;
		uint8_t *d = need(names[k], &n);
		hdr h[64];
		size_t nh = v2_headers(d, n, h, 64);
		size_t second = 0;
		for (size_t i = 0, seen = 0; i < nh; i++)
			if ((h[i].first == 8 || h[i].first == 50) && seen++ == 1)
				second = i;
		cr_assert_gt(second, 0);
		size_t mn;
		uint8_t *m = splice(d, n, h[second].off, h[second].end - h[second].off, NULL, 0, &mn);
		gtr_trace *t;
		gtr_error e;
		gtr_error_clear(&e);
		cr_assert_lt(gtr_trace_open(&t, m, mn, NULL, &e), 0);
		cr_assert(strstr(e.msg, "no frequency") || strstr(e.msg, "no clock"), "%s", e.msg);
		outcome l = exercise(m, mn, GTR_OPEN_LENIENT, names[k]);
		cr_assert_eq(l.open_rc, 0);
		cr_assert_eq(l.loss.generations.count, 1);
		cr_assert_gt(l.loss.generations.bytes, 0);
		free(m);
		free(d);
	}
}

/* Two event batches of different generations swapped. */
Test(malformed, v2_batches_out_of_order)
{
	size_t n;
	uint8_t *d = need("tests/data/multigen-go1.22.trace", &n);
	hdr h[64];
	size_t nh = v2_headers(d, n, h, 64);
	size_t a = 1, b = 0;
	for (size_t i = 0; i < nh; i++)
		if (h[i].first != 8 && h[i].first != 2 && h[i].first != 4 && h[i].gen != h[a].gen) {
			b = i;
			break;
		}
	cr_assert_gt(b, a);
	uint8_t *m = malloc(n);
	size_t p = 0;
	memcpy(m, d, h[a].off);
	p = h[a].off;
	memcpy(m + p, d + h[b].off, h[b].end - h[b].off);
	p += h[b].end - h[b].off;
	memcpy(m + p, d + h[a].end, h[b].off - h[a].end);
	p += h[b].off - h[a].end;
	memcpy(m + p, d + h[a].off, h[a].end - h[a].off);
	p += h[a].end - h[a].off;
	memcpy(m + p, d + h[b].end, n - h[b].end);
	p += n - h[b].end;
	cr_assert_eq(p, n);
	gtr_trace *t;
	gtr_error e;
	gtr_error_clear(&e);
	cr_assert_lt(gtr_trace_open(&t, m, n, NULL, &e), 0, "strict reads batches out of order");
	outcome l = exercise(m, n, GTR_OPEN_LENIENT, "batches out of order");
	cr_assert_eq(l.open_rc, 0);
	cr_assert(gtr_loss_any(&l.loss));
	free(m);
	free(d);
}

/* A newer Go's header: refused with both versions named; lenient reads it as the newest. */
Test(malformed, newer_version)
{
	size_t n;
	uint8_t *d = need("corpora/traces/churn-go1.26.trace", &n);
	const char *hdrs[] = {"go 1.27 trace\0\0\0", "go 1.30 trace\0\0\0"};
	for (int k = 0; k < 2; k++) {
		uint8_t *m = dup_n(d, n);
		memcpy(m, hdrs[k], 16);
		gtr_trace *t;
		gtr_error e;
		gtr_error_clear(&e);
		cr_assert_eq(gtr_trace_open(&t, m, n, NULL, &e), GTR_E_VERSION);
		char want[32];
		snprintf(want, sizeof want, "go 1.%d", k ? 30 : 27);
		cr_assert(strstr(e.msg, want) && strstr(e.msg, "go 1.26"), "%s", e.msg);
		outcome l = exercise(m, n, GTR_OPEN_LENIENT, hdrs[k]);
		cr_assert_eq(l.open_rc, 0);
		cr_assert_eq(l.read_rc, 0);
		cr_assert_eq(l.loss.version_found, k ? 30 : 27);
		cr_assert_eq(l.loss.version_read, 26);
		free(m);
	}
	free(d);
}

/* Odd inputs that are not traces at all. */
Test(malformed, not_traces)
{
	static const char *const inputs[] = {"", "g", "go 1.", "go 1.22 trace", "go 1.22 trace\0\0\0",
					     "go 1.5 trace\0\0\0\0", "\x1f\x8b\x08\0", "go 1.9999999 trace\0",
					     "go 1.22 trace\0\0\0\x01", "go 1.26 trace\0\0\0\x34"};
	static const size_t lens[] = {0, 1, 5, 13, 16, 16, 4, 19, 17, 17};
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
		exercise_all((const uint8_t *)inputs[i], lens[i], inputs[i]);
}

/* ------------------------------------------------------------------ */
/* What once broke. */

Test(malformed, regressions, .timeout = 240)
{
	char *dir = path_of("tests/regress");
	DIR *dp = opendir(dir);
	cr_assert_not_null(dp, "%s", dir);
	struct dirent *de;
	int seen = 0;
	while ((de = readdir(dp))) {
		size_t len = strlen(de->d_name);
		if (len < 7 || strcmp(de->d_name + len - 6, ".trace") != 0)
			continue;
		char rel[512];
		snprintf(rel, sizeof rel, "tests/regress/%s", de->d_name);
		size_t n;
		uint8_t *d = load(rel, &n);
		cr_assert_not_null(d, "%s", rel);
		exercise_all(d, n, rel);
		free(d);
		seen++;
	}
	closedir(dp);
	free(dir);
	cr_assert_gt(seen, 0);
}

/*
 * The earliest event of a generation waits for ever while a thousand
 * other threads go on: each step re-sorts the waiting threads, which is
 * quadratic. It is refused (strict) or cut short (lenient) within a
 * budget of tries per event.
 */
Test(malformed, v2_earliest_event_waits_for_ever, .timeout = 60)
{
	size_t n;
	uint8_t *d = need("tests/regress/v2-earliest-event-waits-for-ever-on-1000-threads.trace", &n);
	outcome s = exercise(d, n, 0, "strict");
	cr_assert_eq(s.open_rc, 0);
	cr_assert_eq(s.read_rc, GTR_E_CORRUPT);
	outcome l = exercise(d, n, GTR_OPEN_LENIENT, "lenient");
	cr_assert_eq(l.read_rc, 0);
	cr_assert_gt(l.loss.events.count, 30000, "every event left is counted");
	cr_assert(strstr(l.loss.events.why, "reasonable time"), "%s", l.loss.events.why);
	free(d);
}
