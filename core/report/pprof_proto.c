/* core/report/pprof_proto.c: profile.proto written by hand, gzip by zlib. */
#include "pprof_proto.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/base/idmap.h"
#include "core/base/vec.h"

/* Frames kept per stack, as Go's cmd/trace keeps. */
#define MAX_FRAMES 128

/* ---- protobuf wire format ---------------------------------------------- */

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
} buf;

static void put(buf *b, const void *p, size_t n)
{
	if (b->oom || n == 0)
		return;
	if (b->n + n < b->n || gtr_grow(&b->p, &b->cap, b->n + n, 1) < 0) {
		b->oom = 1;
		return;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void uv(buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	put(b, t, n);
}

enum { WT_VARINT = 0, WT_LEN = 2 };

static void f_varint(buf *b, unsigned field, uint64_t v)
{
	uv(b, (uint64_t)field << 3 | WT_VARINT);
	uv(b, v);
}

static void f_bytes(buf *b, unsigned field, const void *p, size_t n)
{
	uv(b, (uint64_t)field << 3 | WT_LEN);
	uv(b, n);
	put(b, p, n);
}

/* A nested message: its bytes are in m, which is then emptied. */
static void f_msg(buf *b, unsigned field, buf *m)
{
	if (m->oom)
		b->oom = 1;
	f_bytes(b, field, m->p, m->n);
	m->n = 0;
}

/* ---- byte strings to indices ------------------------------------------ */

/* Distinct byte strings, numbered from 0 in order of first use. */
typedef struct bset {
	buf pool;        /* the bytes, one after the other */
	size_t *off;     /* start of string i in pool; off[n] is the end */
	size_t n, capoff;
	uint32_t *slot;  /* open addressing: index + 1, 0 empty */
	size_t nslot;
} bset;

static int bset_rehash(bset *s)
{
	size_t ns = s->nslot ? s->nslot * 2 : 1024;
	uint32_t *sl = calloc(ns, sizeof *sl);
	if (!sl)
		return GTR_E_NOMEM;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t h = XXH3_64bits(s->pool.p + s->off[i], s->off[i + 1] - s->off[i]);
		size_t j = (size_t)h & (ns - 1);
		while (sl[j])
			j = (j + 1) & (ns - 1);
		sl[j] = (uint32_t)i + 1;
	}
	free(s->slot);
	s->slot = sl;
	s->nslot = ns;
	return 0;
}

/* The index of p[0..n) in s, added when new; -1 when out of memory. */
static int64_t bset_id(bset *s, const void *p, size_t n)
{
	if ((s->n + 1) * 2 > s->nslot && bset_rehash(s) < 0)
		return -1;
	uint64_t h = XXH3_64bits(p, n);
	size_t j = (size_t)h & (s->nslot - 1);
	for (; s->slot[j]; j = (j + 1) & (s->nslot - 1)) {
		size_t i = s->slot[j] - 1;
		if (s->off[i + 1] - s->off[i] == n && (n == 0 || memcmp(s->pool.p + s->off[i], p, n) == 0))
			return (int64_t)i;
	}
	if (s->n >= UINT32_MAX - 1 || gtr_grow(&s->off, &s->capoff, s->n + 2, sizeof *s->off) < 0)
		return -1;
	if (s->n == 0)
		s->off[0] = 0;
	put(&s->pool, p, n);
	if (s->pool.oom)
		return -1;
	s->off[s->n + 1] = s->pool.n;
	s->slot[j] = (uint32_t)++s->n;
	return (int64_t)s->n - 1;
}

static void bset_free(bset *s)
{
	free(s->pool.p);
	free(s->off);
	free(s->slot);
}

/* ---- the profile ------------------------------------------------------- */

typedef struct sample {
	size_t rec;       /* the record whose frames it shows */
	uint64_t last;    /* that record's last use */
	uint64_t count, ns;
} sample;

typedef struct builder {
	bset strs;      /* string_table */
	bset stacks;    /* sample -> its key: the PCs of its stack, as bytes */
	gtr_idmap *locs;  /* pc -> location id */
	gtr_idmap *funcs; /* (name, file) string ids -> function id */
	buf locmsgs, funcmsgs; /* encoded Location and Function messages */
	buf tmp, tmp2;
	sample *samples;
	size_t nsamples, capsamples;
	uint64_t nlocs, nfuncs;
} builder;

static int64_t str_id(builder *b, gtr_str s)
{
	return bset_id(&b->strs, s.p ? s.p : "", s.n);
}

/* The location id of a frame, adding it (and its function) when new. 0: out of memory. */
static uint64_t loc_id(builder *b, const gtr_frame *f)
{
	uint64_t id;
	if (gtr_idmap_get(b->locs, 0, f->pc, &id))
		return id;
	int64_t name = str_id(b, f->func), file = str_id(b, f->file);
	if (name < 0 || file < 0)
		return 0;
	uint64_t fn;
	if (!gtr_idmap_get(b->funcs, (uint64_t)name, (uint64_t)file, &fn)) {
		fn = ++b->nfuncs;
		if (gtr_idmap_put(b->funcs, (uint64_t)name, (uint64_t)file, fn) < 0)
			return 0;
		f_varint(&b->tmp, 1, fn);
		f_varint(&b->tmp, 2, (uint64_t)name);
		f_varint(&b->tmp, 3, (uint64_t)name);
		f_varint(&b->tmp, 4, (uint64_t)file);
		f_msg(&b->funcmsgs, 5, &b->tmp);
	}
	id = ++b->nlocs;
	if (gtr_idmap_put(b->locs, 0, f->pc, id) < 0)
		return 0;
	f_varint(&b->tmp, 1, id);
	f_varint(&b->tmp, 3, f->pc);
	f_varint(&b->tmp2, 1, fn);
	f_varint(&b->tmp2, 2, f->line);
	f_msg(&b->tmp, 4, &b->tmp2);
	f_msg(&b->locmsgs, 4, &b->tmp);
	return id;
}

static void value_type(builder *b, buf *out, unsigned field, const char *type, const char *unit)
{
	int64_t t = str_id(b, (gtr_str){type, strlen(type)});
	int64_t u = str_id(b, (gtr_str){unit, strlen(unit)});
	f_varint(&b->tmp, 1, (uint64_t)(t < 0 ? 0 : t));
	f_varint(&b->tmp, 2, (uint64_t)(u < 0 ? 0 : u));
	f_msg(out, field, &b->tmp);
}

static int gzip_out(const buf *in, gtr_out *o, gtr_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return gtr_error_set(err, GTR_E_NOMEM, 0, "gzip: cannot start the compressor");
	unsigned char chunk[16384];
	z.next_in = in->p;
	z.avail_in = 0;
	size_t left = in->n;
	int zr;
	do {
		if (z.avail_in == 0 && left) {
			z.avail_in = left > (1u << 30) ? 1u << 30 : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		zr = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return gtr_error_set(err, GTR_E_IO, 0, "gzip: compressor failed");
		}
		gtr_out_write(o, chunk, sizeof chunk - z.avail_out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int gtr_pprof_write(const gtr_trace *t, const gtr_pprof *p, gtr_out *o, gtr_error *err)
{
	builder b;
	memset(&b, 0, sizeof b);
	buf prof = {0};
	gtr_frame *frames = malloc(MAX_FRAMES * sizeof *frames);
	uint64_t *ids = malloc(MAX_FRAMES * sizeof *ids);
	b.locs = gtr_idmap_create();
	b.funcs = gtr_idmap_create();
	int rc = 0;
	if (!frames || !ids || !b.locs || !b.funcs || str_id(&b, GTR_STR("")) != 0)
		goto oom;

	/*
	 * Go tells stacks apart by their first 128 PCs, padded with zeros:
	 * a stack that ends in frames of PC 0 is the same as the one without
	 * them, and the stack shown for the sample is the one met last.
	 */
	for (size_t i = 0; i < p->n; i++) {
		const gtr_pprof_rec *r = &p->recs[i];
		size_t n = 0;
		if (r->stack) {
			rc = gtr_trace_stack(t, r->table, r->stack, frames, MAX_FRAMES, &n, err);
			if (rc < 0)
				goto out;
		}
		while (n > 0 && frames[n - 1].pc == 0)
			n--;
		for (size_t j = 0; j < n; j++)
			ids[j] = frames[j].pc;
		int64_t s = bset_id(&b.stacks, ids, n * sizeof *ids);
		if (s < 0)
			goto oom;
		if ((size_t)s == b.nsamples) {
			if (gtr_grow(&b.samples, &b.capsamples, b.nsamples + 1, sizeof *b.samples) < 0)
				goto oom;
			b.samples[b.nsamples++] = (sample){i, r->last, 0, 0};
		}
		sample *sm = &b.samples[s];
		if (r->last > sm->last) {
			sm->rec = i;
			sm->last = r->last;
		}
		sm->count += r->count;
		sm->ns += r->ns;
	}

	value_type(&b, &prof, 1, "contentions", "count");
	value_type(&b, &prof, 1, "delay", "nanoseconds");
	for (size_t i = 0; i < b.nsamples; i++) {
		const sample *s = &b.samples[i];
		const gtr_pprof_rec *r = &p->recs[s->rec];
		size_t n = 0;
		if (r->stack) {
			rc = gtr_trace_stack(t, r->table, r->stack, frames, MAX_FRAMES, &n, err);
			if (rc < 0)
				goto out;
		}
		/* loc_id writes messages through tmp and tmp2: all ids first. */
		for (size_t j = 0; j < n; j++)
			if (!(ids[j] = loc_id(&b, &frames[j])))
				goto oom;
		for (size_t j = 0; j < n; j++)
			uv(&b.tmp2, ids[j]);
		f_msg(&b.tmp, 1, &b.tmp2); /* packed location_id */
		uv(&b.tmp2, s->count);
		uv(&b.tmp2, s->ns);
		f_msg(&b.tmp, 2, &b.tmp2); /* packed value */
		f_msg(&prof, 2, &b.tmp);
	}
	put(&prof, b.locmsgs.p, b.locmsgs.n);
	put(&prof, b.funcmsgs.p, b.funcmsgs.n);
	int64_t tt = str_id(&b, GTR_STR("trace")), tc = str_id(&b, GTR_STR("count"));
	if (tt < 0 || tc < 0)
		goto oom;
	for (size_t i = 0; i < b.strs.n; i++)
		f_bytes(&prof, 6, b.strs.pool.p + b.strs.off[i], b.strs.off[i + 1] - b.strs.off[i]);
	f_varint(&b.tmp, 1, (uint64_t)tt);
	f_varint(&b.tmp, 2, (uint64_t)tc);
	f_msg(&prof, 11, &b.tmp); /* period_type */
	f_varint(&prof, 12, 1);   /* period */
	if (prof.oom || b.tmp.oom || b.tmp2.oom || b.locmsgs.oom || b.funcmsgs.oom)
		goto oom;
	rc = gzip_out(&prof, o, err);
	goto out;
oom:
	rc = gtr_error_set(err, GTR_E_NOMEM, 0, "out of memory writing the profile");
out:
	free(frames);
	free(ids);
	free(prof.p);
	free(b.locmsgs.p);
	free(b.funcmsgs.p);
	free(b.tmp.p);
	free(b.tmp2.p);
	free(b.samples);
	bset_free(&b.strs);
	bset_free(&b.stacks);
	gtr_idmap_free(b.locs);
	gtr_idmap_free(b.funcs);
	return rc;
}
