/*
 * bench/kernels.c: throughput of the uvarint kernels, every ISA the
 * machine runs, on synthetic streams shaped like trace data.
 *
 * A table of candidates with one signature, best of ROUNDS rounds, one
 * machine-readable line per (kernel, isa, stream, values per call):
 *
 *   kernel=decode_n isa=avx512 stream=trace per_call=4 bytes=... values=...
 *          seconds=... GB/s=... Mvalues/s=... speedup=...
 *
 * speedup is against the scalar reference on the same line's inputs
 * (printed when it ran: `kernels [KERNEL...]` runs only the kernels
 * named, GTR_ISA=NAME only that ISA).
 * The record walk of the v1 index (kernel=walk) runs over records
 * shaped like v1 events: a tag whose top two bits say its count of
 * values (1 to 4), then that many values of the stream's shape; its
 * lines count records as well (records=..., Mrecords/s=...).
 * per_call=all hands the whole stream to one call (stack tables, the
 * index's long skips); small counts are the per-event calls of the
 * decoders. Streams: `trace` has 1 to 3-byte values (timestamps, ids),
 * `small` mostly single bytes, `wide` every length from 1 to 10 bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simd/isa.h"

enum { ROUNDS = 7, STREAM_VALUES = 1 << 20 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t encode(uint64_t v, uint8_t *out)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

/* One value of a stream of this shape, encoded at out; its length. */
static size_t encode_shaped(const char *shape, uint8_t *out)
{
	unsigned bits;
	if (strcmp(shape, "trace") == 0)
		bits = 1 + (unsigned)(next() % 21);
	else if (strcmp(shape, "small") == 0)
		bits = next() % 8 ? 7 : 14;
	else
		bits = 1 + (unsigned)(next() % 64);
	uint64_t v = next();
	v = bits >= 64 ? v : v & ((1ull << bits) - 1);
	return encode(v, out);
}

static size_t make_stream(uint8_t *buf, const char *shape)
{
	size_t len = 0;
	for (size_t i = 0; i < STREAM_VALUES; i++)
		len += encode_shaped(shape, buf + len);
	return len;
}

/* Records as the v1 index walks them: tag, then (tag >> 6) + 1 values. */
static size_t make_records(uint8_t *buf, const char *shape, uint8_t nvals[256], size_t *nrec)
{
	size_t len = 0, vals = 0;
	*nrec = 0;
	for (unsigned t = 0; t < 256; t++)
		nvals[t] = (uint8_t)((t >> 6) + 1);
	while (vals < STREAM_VALUES) {
		uint8_t tag = (uint8_t)next();
		buf[len++] = tag;
		for (unsigned i = 0; i < nvals[tag]; i++)
			len += encode_shaped(shape, buf + len);
		vals += nvals[tag];
		(*nrec)++;
	}
	return len;
}

static volatile uint64_t sink;

/* Seconds for the best of ROUNDS walks over the records; the last
 * GTR_PAD bytes, which the walk leaves to its caller, are not timed. */
static double run_walk(const gtr_kernels *k, const uint8_t *buf, size_t len, const uint8_t nvals[256],
		       size_t *walked, size_t *bytes)
{
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		gtr_walk_sums sums;
		memset(&sums, 0, sizeof sums);
		sums.min = UINT64_MAX;
		size_t n = 0;
		double t0 = now();
		size_t got = k->uvarint_walk(buf, buf + len, nvals, &sums, &n);
		double dt = now() - t0;
		sink += sums.sum;
		*walked = n;
		*bytes = got;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Seconds for the best of ROUNDS passes over the stream, per_call values at a time. */
static double run(const gtr_kernels *k, const char *kernel, const uint8_t *buf, size_t len, size_t per_call,
		  uint64_t *out, uint64_t *bits)
{
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		const uint8_t *p = buf, *end = buf + len;
		size_t left = STREAM_VALUES;
		uint64_t acc = 0;
		double t0 = now();
		if (strcmp(kernel, "marks") == 0) {
			acc += k->uvarint_marks(buf, end, bits);
		} else if (strcmp(kernel, "count") == 0) {
			acc += k->uvarint_count(buf, end);
		} else if (strcmp(kernel, "lut64") == 0) {
			/* The decoded values (decode32 writes them here first), 2048 at a time. */
			static const uint8_t lut[64] = {1, 2, 3, 4, 5, 6, 7};
			const uint32_t *v = (const uint32_t *)(void *)out;
			for (size_t i = 0; i < STREAM_VALUES; i += 2048)
				k->lut64_u32(v + i, 2048, lut, (uint8_t *)bits + i);
			acc += ((uint8_t *)bits)[0];
		} else if (strcmp(kernel, "decode32_lut") == 0) {
			/* As the v2 walk calls it: windows of 2048 bytes. */
			static const uint8_t lut[64] = {1, 2, 3, 4, 5, 6, 7};
			uint32_t *out32 = (uint32_t *)(void *)out;
			size_t nv = 0;
			while (p < end) {
				const uint8_t *lim = end - p > 2048 ? p + 2048 : end;
				size_t used;
				ptrdiff_t c = k->uvarint_decode32_lut(p, lim, end, lut, out32 + nv, (uint8_t *)bits + nv, &used);
				if (c <= 0) {
					fprintf(stderr, "kernels: decode32_lut/%s failed (%td)\n", gtr_isa_name(k->isa), c);
					exit(1);
				}
				p += used;
				nv += (size_t)c;
			}
			acc += nv + out32[0];
		} else {
			uint32_t *out32 = (uint32_t *)(void *)out;
			while (left) {
				size_t n = per_call < left ? per_call : left;
				ptrdiff_t s = strcmp(kernel, "skip") == 0 ? k->uvarint_skip(p, end, n)
					      : strcmp(kernel, "decode32_n") == 0
						  ? k->uvarint_decode32_n(p, end, out32, n)
						  : k->uvarint_decode_n(p, end, out, n);
				if (s < 0) {
					fprintf(stderr, "kernels: %s/%s failed (%td)\n", kernel, gtr_isa_name(k->isa), s);
					exit(1);
				}
				acc += out[0];
				p += s;
				left -= n;
			}
		}
		double dt = now() - t0;
		sink += acc;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Ends a result line: its speedup over the scalar reference, when that ran. */
static void speedup(int ref, double scalar, double t)
{
	if (ref)
		printf(" speedup=%.2f", scalar / t);
	printf("\n");
}

/* Whether the command line asks for this kernel (no names: all). */
static int wanted(int argc, char **argv, const char *kernel)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], kernel) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const shapes[] = {"trace", "small", "wide"};
	static const char *const kernels[] = {"skip", "decode_n", "decode32_n", "marks", "count", "lut64", "decode32_lut"};
	static const size_t per_calls[] = {1, 4, 16, 0};
	uint8_t *buf = malloc((size_t)STREAM_VALUES * 10);
	uint64_t *out = malloc((size_t)STREAM_VALUES * sizeof *out);
	uint64_t *bits = malloc(((size_t)STREAM_VALUES * 10 / 64 + 1) * sizeof *bits);
	uint8_t *lens = malloc((size_t)STREAM_VALUES * 10); /* a length per byte of buf */
	if (!buf || !out || !bits || !lens)
		return 1;
	/* Every ISA the machine runs, or the one GTR_ISA names. */
	gtr_kernels ks[GTR_ISA_COUNT];
	int nk = 0;
	const char *only = getenv("GTR_ISA");
	if (only && *only) {
		if (gtr_kernels_init(&ks[0], only) != 0) {
			fprintf(stderr, "kernels: GTR_ISA=%s: not an ISA this machine runs\n", only);
			return 2;
		}
		nk = 1;
	} else {
		for (int i = 0; i < GTR_ISA_COUNT; i++)
			if (gtr_kernels_init(&ks[nk], gtr_isa_name((gtr_isa)i)) == 0)
				nk++;
	}
	/* speedup= compares with the scalar reference when it ran too. */
	const int ref = ks[0].isa == GTR_ISA_SCALAR;
	for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
		size_t len = make_stream(buf, shapes[s]);
		for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
			if (!wanted(argc, argv, kernels[kk]))
				continue;
			int marks = strcmp(kernels[kk], "marks") == 0 || strcmp(kernels[kk], "count") == 0 ||
				    strcmp(kernels[kk], "lut64") == 0 || strcmp(kernels[kk], "decode32_lut") == 0;
			for (size_t pc = 0; pc < sizeof per_calls / sizeof *per_calls; pc++) {
				size_t per_call = per_calls[pc] ? per_calls[pc] : STREAM_VALUES;
				if (marks && per_calls[pc])
					continue;
				double scalar = 0;
				for (int i = 0; i < nk; i++) {
					double t = run(&ks[i], kernels[kk], buf, len, per_call, out, bits);
					if (i == 0)
						scalar = t;
					char pcs[24];
					if (per_calls[pc])
						snprintf(pcs, sizeof pcs, "%zu", per_call);
					else
						snprintf(pcs, sizeof pcs, "all");
					printf("kernel=%s isa=%s stream=%s per_call=%s bytes=%zu values=%d seconds=%.6f "
					       "GB/s=%.3f Mvalues/s=%.1f",
					       kernels[kk], gtr_isa_name(ks[i].isa), shapes[s], pcs, len, STREAM_VALUES, t,
					       (double)len / t / 1e9, STREAM_VALUES / t / 1e6);
					speedup(ref, scalar, t);
				}
			}
		}
	}
	static const char *const wshapes[] = {"trace", "small"};
	uint8_t nvals[256];
	for (size_t s = 0; s < sizeof wshapes / sizeof *wshapes; s++) {
		size_t nrec;
		size_t len = make_records(buf, wshapes[s], nvals, &nrec);
		double scalar = 0;
		for (int i = 0; i < nk && wanted(argc, argv, "walk"); i++) {
			size_t walked, bytes;
			double t = run_walk(&ks[i], buf, len, nvals, &walked, &bytes);
			if (i == 0)
				scalar = t;
			printf("kernel=walk isa=%s stream=%s per_call=all bytes=%zu records=%zu seconds=%.6f "
			       "GB/s=%.3f Mrecords/s=%.1f",
			       gtr_isa_name(ks[i].isa), wshapes[s], bytes, walked, t, (double)bytes / t / 1e9,
			       (double)walked / t / 1e6);
			speedup(ref, scalar, t);
		}
		/* The lengths of the records at every byte, 4 KiB of them a call,
		 * and a walk that steps by them. */
		for (int i = 0; i < nk && wanted(argc, argv, "lens"); i++) {
			double best = 1e9;
			size_t walked = 0;
			for (int r = 0; r < ROUNDS; r++) {
				double t0 = now();
				for (size_t o = 0; o < len; o += 4096)
					ks[i].record_lens(buf + o, len - o < 4096 ? len - o : 4096, buf + len, nvals, lens + o);
				size_t q = 0, n = 0;
				while (q < len && lens[q]) {
					q += lens[q];
					n++;
				}
				double dt = now() - t0;
				walked = n;
				if (dt < best)
					best = dt;
			}
			if (i == 0)
				scalar = best;
			printf("kernel=lens isa=%s stream=%s per_call=4096 bytes=%zu records=%zu seconds=%.6f "
			       "GB/s=%.3f Mrecords/s=%.1f",
			       gtr_isa_name(ks[i].isa), wshapes[s], len, walked, best, (double)len / best / 1e9,
			       (double)walked / best / 1e6);
			speedup(ref, scalar, best);
		}
	}
	free(buf);
	free(out);
	free(bits);
	free(lens);
	return 0;
}
