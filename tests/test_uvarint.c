/* tests/test_uvarint.c: the varint kernels, against a straightforward encoder. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "simd/isa.h"

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

Test(uvarint, round_trips_edges)
{
	static const uint64_t vals[] = {0, 1, 127, 128, 255, 16383, 16384, (1ull << 32) - 1,
					1ull << 35, (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		uint8_t buf[16];
		size_t n = encode(vals[i], buf);
		uint64_t got = 0;
		cr_assert_eq(gtr_uvarint_decode(buf, buf + n, &got), (int)n);
		cr_assert_eq(got, vals[i]);
		/* One byte short of the end is never read past. */
		cr_assert_eq(gtr_uvarint_decode(buf, buf + n - 1, &got), GTR_UVARINT_SHORT);
	}
}

Test(uvarint, rejects_overlong)
{
	uint8_t buf[12];
	memset(buf, 0x80, sizeof buf);
	buf[11] = 0;
	uint64_t v;
	cr_assert_eq(gtr_uvarint_decode(buf, buf + sizeof buf, &v), GTR_UVARINT_OVERFLOW);
	/* Ten bytes whose last one carries more than the 64th bit. */
	uint8_t big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	cr_assert_eq(gtr_uvarint_decode(big, big + 10, &v), GTR_UVARINT_OVERFLOW);
}

Test(uvarint, skip_and_decode_n_agree_on_random_streams)
{
	gtr_kernels k;
	cr_assert_eq(gtr_kernels_init(&k, NULL), 0);
	srand(42);
	enum { N = 5000 };
	uint8_t *buf = malloc(N * 10);
	uint64_t *vals = malloc(N * sizeof *vals), *got = malloc(N * sizeof *got);
	size_t len = 0;
	for (int i = 0; i < N; i++) {
		int bits = rand() % 65;
		uint64_t v = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand();
		vals[i] = bits == 64 ? v : v & ((1ull << bits) - 1);
		len += encode(vals[i], buf + len);
	}
	cr_assert_eq(k.uvarint_skip(buf, buf + len, N), (ptrdiff_t)len);
	cr_assert_eq(k.uvarint_decode_n(buf, buf + len, got, N), (ptrdiff_t)len);
	cr_assert_eq(memcmp(got, vals, N * sizeof *vals), 0);
	/* Every shorter buffer ends inside a varint or has fewer than N. */
	cr_assert_eq(k.uvarint_skip(buf, buf + len - 1, N), GTR_UVARINT_SKIP_SHORT);
	free(buf);
	free(vals);
	free(got);
}

/* ---- every SIMD path against the scalar reference ---------------------- */

/* The kernels of every ISA this machine runs, scalar excluded. */
static gtr_kernels wide[GTR_ISA_COUNT];
static size_t nwide;

static void load_wide(void)
{
	nwide = 0;
	for (int i = GTR_ISA_SCALAR + 1; i < GTR_ISA_COUNT; i++)
		if (gtr_kernels_init(&wide[nwide], gtr_isa_name((gtr_isa)i)) == 0)
			nwide++;
}

enum { MAXN = 1200 };

/* Varints in data[0..len): the n that makes every kernel read to the end. */
static size_t count_ends(const uint8_t *p, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += p[i] < 0x80;
	return n;
}

/*
 * Every kernel of every wide ISA on data[0..len) (n values) must return
 * what the scalar one returns, write the same prefix of out, and nothing
 * past it; marks must agree bit for bit.
 */
static void agree(const uint8_t *p, size_t len, size_t n)
{
	static uint64_t want[MAXN + 1], got[MAXN + 1];
	static uint32_t want32[MAXN + 1], got32[MAXN + 1];
	static uint64_t bwant[MAXN / 64 + 4], bgot[MAXN / 64 + 4];
	cr_assert(n <= MAXN && len <= MAXN);
	const uint8_t *end = p + len;
	ptrdiff_t sk = gtr_uvarint_skip_scalar(p, end, n);
	memset(want, 0xa5, (n + 1) * sizeof *want);
	ptrdiff_t dk = gtr_uvarint_decode_n_scalar(p, end, want, n);
	/* decode32: decode_n's values, the long ones marked, and the same status. */
	memset(want32, 0xa5, (n + 1) * sizeof *want32);
	ptrdiff_t dk32 = gtr_uvarint_decode32_n_scalar(p, end, want32, n);
	cr_assert_eq(dk32, dk, "scalar decode32: %td, decode_n %td (len %zu, n %zu)", dk32, dk, len, n);
	for (size_t j = 0, at = 0; j < n && (dk >= 0 || want32[j] != 0xa5a5a5a5u); j++) {
		uint64_t v;
		int k = gtr_uvarint_decode(p + at, end, &v);
		if (k <= 0)
			break;
		cr_assert_eq(want32[j], v < GTR_UVARINT32_LONG ? (uint32_t)v : GTR_UVARINT32_LONG,
			     "scalar decode32: out[%zu] = %#x for %d bytes of %#llx", j, want32[j], k,
			     (unsigned long long)v);
		at += (size_t)k;
	}
	size_t words = (len + 63) / 64;
	memset(bwant, 0xa5, (words + 1) * sizeof *bwant);
	size_t mk = gtr_uvarint_marks_scalar(p, end, bwant);
	cr_assert_eq(gtr_uvarint_count_scalar(p, end), count_ends(p, len), "scalar count (len %zu)", len);
	cr_assert_eq(mk, count_ends(p, len), "scalar marks (len %zu)", len);
	/* (the scalar kernels take 8 bytes at a time: each bit against its byte) */
	for (size_t i = 0; i < words * 64; i++)
		cr_assert_eq(bwant[i / 64] >> (i % 64) & 1, i < len && p[i] < 0x80,
			     "scalar marks: bit %zu (len %zu)", i, len);
	for (size_t i = 0; i < nwide; i++) {
		const gtr_kernels *k = &wide[i];
		const char *isa = gtr_isa_name(k->isa);
		ptrdiff_t r = k->uvarint_skip(p, end, n);
		cr_assert_eq(r, sk, "%s skip: %td, scalar %td (len %zu, n %zu)", isa, r, sk, len, n);
		memset(got, 0xa5, (n + 1) * sizeof *got);
		r = k->uvarint_decode_n(p, end, got, n);
		cr_assert_eq(r, dk, "%s decode_n: %td, scalar %td (len %zu, n %zu)", isa, r, dk, len, n);
		for (size_t j = 0; j <= n; j++)
			cr_assert_eq(got[j], want[j], "%s decode_n: out[%zu] = %#llx, scalar %#llx (len %zu, n %zu)",
				     isa, j, (unsigned long long)got[j], (unsigned long long)want[j], len, n);
		memset(got32, 0xa5, (n + 1) * sizeof *got32);
		r = k->uvarint_decode32_n(p, end, got32, n);
		cr_assert_eq(r, dk32, "%s decode32_n: %td, scalar %td (len %zu, n %zu)", isa, r, dk32, len, n);
		for (size_t j = 0; j <= n; j++)
			cr_assert_eq(got32[j], want32[j], "%s decode32_n: out[%zu] = %#x, scalar %#x (len %zu, n %zu)",
				     isa, j, got32[j], want32[j], len, n);
		memset(bgot, 0xa5, (words + 1) * sizeof *bgot);
		size_t m = k->uvarint_marks(p, end, bgot);
		cr_assert_eq(m, mk, "%s marks: %zu, scalar %zu (len %zu)", isa, m, mk, len);
		cr_assert_eq(memcmp(bgot, bwant, (words + 1) * sizeof *bgot), 0, "%s marks bits (len %zu)", isa, len);
		size_t cn = k->uvarint_count(p, end);
		cr_assert_eq(cn, mk, "%s count: %zu, scalar %zu (len %zu)", isa, cn, mk, len);
	}
}


/* A stream of `count` varints whose lengths follow `mix`; returns its length. */
static size_t random_stream(uint8_t *out, size_t cap, size_t count, int mix)
{
	size_t len = 0;
	for (size_t i = 0; i < count && len + 10 <= cap; i++) {
		int bits;
		switch (mix) {
		case 0: bits = rand() % 65; break;           /* every length */
		case 1: bits = rand() % 22; break;           /* 1 to 3 bytes, as in traces */
		case 2: bits = rand() % 8 ? 7 : 14; break;   /* mostly single bytes */
		default: bits = rand() % 4 ? rand() % 15 : 56 + rand() % 9; break; /* 9 and 10 bytes */
		}
		uint64_t v = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
		v = bits >= 64 ? v | 1ull << 63 : v & ((1ull << bits) - 1);
		len += encode(v, out + len);
	}
	return len;
}

/*
 * The last `len` bytes of a page followed by a PROT_NONE page: a kernel
 * that reads past the end of its input there faults. Lives until exit.
 */
static uint8_t *guarded(size_t len)
{
	static uint8_t *edge;
	if (!edge) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		uint8_t *map = mmap(NULL, pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert(map != MAP_FAILED);
		cr_assert_eq(mprotect(map + pg, pg, PROT_NONE), 0);
		edge = map + pg;
	}
	return edge - len;
}

Test(simd, machine_has_wide_paths)
{
	load_wide();
	/* Not an error on an old CPU, but say what was compared. */
	cr_log_info("comparing %zu wide ISA(s) against scalar (best: %s)", nwide,
		    gtr_isa_name(gtr_isa_detect()));
	gtr_kernels k;
	cr_assert_eq(gtr_kernels_init(&k, NULL), 0);
	cr_assert_eq(k.isa, gtr_isa_detect(), "the default kernels are the best detected");
}

Test(simd, random_streams)
{
	load_wide();
	static uint8_t buf[MAXN];
	srand(7);
	for (int round = 0; round < 400; round++) {
		int mix = round % 4;
		size_t len = random_stream(buf, sizeof buf, (size_t)(rand() % 200 + 1), mix);
		size_t all = count_ends(buf, len);
		agree(buf, len, all);
		agree(buf, len, all + 1);                 /* one more than there is: short */
		agree(buf, len, (size_t)rand() % (all + 1));
		agree(buf, len - (len ? (size_t)rand() % (len < 12 ? len : 12) : 0), all); /* cut */
	}
}

Test(simd, exhaustive_short_inputs)
{
	load_wide();
	/* Every string of up to 3 bytes on its own (the wide kernels leave
	 * inputs shorter than a block to the reference)... */
	for (uint32_t x = 0; x < (1u << 24); x++) {
		uint8_t s[3] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16)};
		size_t len = x < 256 ? 1 : x < 65536 ? 2 : 3;
		if (x == 0)
			agree(s, 0, 1);
		agree(s, len, count_ends(s, len) + 1);
		if (x < 65536 || (s[2] & 0x80) == 0)
			agree(s, len, count_ends(s, len));
	}
}

Test(simd, exhaustive_short_strings_in_blocks)
{
	load_wide();
	/* ...and every 2-byte string inside a 64-byte block at the places
	 * where the wide paths change gear: the start, the lane boundaries
	 * around byte 8, the per-lane window's edge (byte 56) and the last
	 * bytes before `end`. */
	uint8_t *buf = guarded(64);
	static const size_t at[] = {0, 7, 8, 54, 55, 56, 62};
	for (uint32_t x = 0; x < (1u << 16); x++)
		for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
			memset(buf, 0x05, 64);
			buf[at[i]] = (uint8_t)x;
			buf[at[i] + 1] = (uint8_t)(x >> 8);
			size_t n = count_ends(buf, 64);
			agree(buf, 64, n);
			if (at[i] == 62)
				agree(buf, 64, n + 1);
		}
}

Test(simd, structured_3_byte_strings_at_every_offset)
{
	load_wide();
	/* 3-byte strings over the byte classes that matter (terminator or
	 * not, 0, 1, 2, 7-bit edges) at every offset of a block. */
	static const uint8_t cls[] = {0x00, 0x01, 0x02, 0x3f, 0x40, 0x7f, 0x80, 0x81, 0x82, 0xc0, 0xfe, 0xff};
	enum { C = sizeof cls };
	uint8_t *buf = guarded(64);
	for (size_t a = 0; a < C; a++)
		for (size_t b = 0; b < C; b++)
			for (size_t c = 0; c < C; c++)
				for (size_t off = 0; off <= 61; off++) {
					memset(buf, 0x09, 64);
					buf[off] = cls[a];
					buf[off + 1] = cls[b];
					buf[off + 2] = cls[c];
					size_t n = count_ends(buf, 64);
					agree(buf, 64, n);
					agree(buf, 64, n + 1);
				}
}

Test(simd, long_and_overlong_everywhere)
{
	load_wide();
	/* k continuation bytes then a last byte v, at every offset of two
	 * blocks of single-byte varints: 9- and 10-byte varints (valid when
	 * the 10th byte is 0 or 1), overlong ones, and runs the end cuts. */
	static const uint8_t last[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff};
	static uint8_t buf[160];
	for (size_t k = 0; k <= 13; k++)
		for (size_t v = 0; v < sizeof last; v++)
			for (size_t off = 0; off < 100; off++) {
				memset(buf, 0x11, sizeof buf);
				memset(buf + off, 0x80 | (int)(off % 0x7f), k);
				buf[off + k] = last[v];
				size_t all = count_ends(buf, sizeof buf);
				agree(buf, sizeof buf, all);
				agree(buf, sizeof buf, off + 1);
				agree(buf, off + k + 1, count_ends(buf, off + k + 1) + 1);
				agree(buf, 128, count_ends(buf, 128));
			}
}

Test(simd, every_length_at_every_start_before_the_end)
{
	load_wide();
	/* Single-byte varints, then one of 1 to 11 bytes starting at each
	 * byte of the last block before a guard page (cut by the end when it
	 * does not fit), then single bytes again. */
	for (size_t blk = 64; blk <= 72; blk += 8) {
		uint8_t *buf = guarded(blk);
		for (size_t len = 1; len <= 11; len++)
			for (size_t at = 0; at < blk; at++) {
				memset(buf, 0x03, blk);
				for (size_t i = 0; i + 1 < len && at + i < blk; i++)
					buf[at + i] = (uint8_t)(0x80 | (i * 37 + at));
				if (at + len - 1 < blk)
					buf[at + len - 1] = len == 10 ? 0x01 : 0x55;
				size_t n = count_ends(buf, blk);
				agree(buf, blk, n);
				agree(buf, blk, n + 1);
				agree(buf, blk, at / 2 + 1);
			}
	}
}

Test(simd, misaligned_starts)
{
	load_wide();
	static uint8_t store[MAXN + 64] __attribute__((aligned(64)));
	static uint8_t stream[MAXN];
	srand(11);
	for (int mix = 0; mix < 4; mix++) {
		size_t len = random_stream(stream, MAXN - 64, 300, mix);
		for (size_t off = 0; off < 64; off++) {
			memcpy(store + off, stream, len);
			size_t all = count_ends(stream, len);
			agree(store + off, len, all);
			agree(store + off, len, all / 2);
			agree(store + off, len - 1, all);
		}
	}
}

Test(simd, never_read_past_the_end)
{
	load_wide();
	/* Inputs that end exactly where a PROT_NONE page begins: any read past
	 * `end` faults. */
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(map != MAP_FAILED);
	cr_assert_eq(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	uint8_t *edge = map + pg;
	static uint8_t stream[MAXN];
	static uint64_t out[MAXN], bits[MAXN / 64 + 1];
	srand(13);
	for (int mix = 0; mix < 4; mix++) {
		size_t slen = random_stream(stream, sizeof stream, 400, mix);
		for (size_t len = 0; len <= 300 && len <= slen; len++) {
			uint8_t *p = edge - len;
			memcpy(p, stream + slen - len, len);
			agree(p, len, count_ends(p, len));
			agree(p, len, count_ends(p, len) + 1);
			/* A varint the end cuts, after a run of good ones. */
			if (len) {
				p[len - 1] |= 0x80;
				agree(p, len, count_ends(p, len) + 1);
			}
		}
	}
	/* Nothing but continuation bytes up to the guard page. */
	for (size_t len = 1; len <= 200; len++) {
		memset(edge - len, 0xff, len);
		for (size_t i = 0; i < nwide; i++) {
			cr_assert_eq(wide[i].uvarint_skip(edge - len, edge, 1),
				     len < 10 ? GTR_UVARINT_SKIP_SHORT : GTR_UVARINT_OVERFLOW);
			cr_assert_eq(wide[i].uvarint_decode_n(edge - len, edge, out, 1),
				     len < 10 ? GTR_UVARINT_SKIP_SHORT : GTR_UVARINT_OVERFLOW);
			cr_assert_eq(wide[i].uvarint_decode32_n(edge - len, edge, (uint32_t *)out, 1),
				     len < 10 ? GTR_UVARINT_SKIP_SHORT : GTR_UVARINT_OVERFLOW);
			cr_assert_eq(wide[i].uvarint_marks(edge - len, edge, bits), 0);
		}
	}
	munmap(map, (size_t)pg * 2);
}

Test(simd, malformed_inside_good_streams)
{
	load_wide();
	static uint8_t buf[MAXN];
	static const uint8_t bad[][12] = {
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, /* 11 bytes */
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},       /* 10th > 1 */
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},       /* UINT64_MAX: fine */
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},       /* 10 bytes, value 0 */
	};
	static const size_t badlen[] = {11, 10, 10, 10, 10};
	srand(17);
	for (int round = 0; round < 300; round++) {
		size_t b = (size_t)round % 5;
		size_t len = random_stream(buf, 600, (size_t)rand() % 120, round % 3);
		memcpy(buf + len, bad[b], badlen[b]);
		len += badlen[b];
		len += random_stream(buf + len, 400, (size_t)rand() % 60, 1);
		size_t all = count_ends(buf, len);
		agree(buf, len, all);
		agree(buf, len, all + 1);
	}
}

Test(simd, big_counts)
{
	load_wide();
	/* Many blocks per call, the way stack tables are read. */
	static uint8_t buf[MAXN];
	srand(19);
	for (int mix = 0; mix < 3; mix++) {
		size_t len = random_stream(buf, sizeof buf, MAXN, mix);
		agree(buf, len, count_ends(buf, len));
	}
}

Test(simd, lut64_agrees_with_scalar)
{
	load_wide();
	static uint32_t v[300];
	static uint8_t lut[64], want[301], got[301];
	srand(17);
	for (int i = 0; i < 64; i++)
		lut[i] = (uint8_t)(rand() | 1);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)rand() % 300;
		for (size_t i = 0; i < n; i++) {
			/* Table indexes, the first values past it, and anything. */
			int kind = rand() % 4;
			v[i] = kind == 0 ? (uint32_t)rand() % 64
			       : kind == 1 ? 60 + (uint32_t)rand() % 8
			       : kind == 2 ? (uint32_t)rand() << 1 ^ (uint32_t)rand()
					   : UINT32_MAX - (uint32_t)rand() % 4;
		}
		memset(want, 0x5a, sizeof want);
		gtr_lut64_u32_scalar(v, n, lut, want);
		for (size_t i = 0; i < n; i++)
			cr_assert_eq(want[i], v[i] < 64 ? lut[v[i]] : 0);
		cr_assert_eq(want[n], 0x5a);
		for (size_t w = 0; w < nwide; w++) {
			memset(got, 0x5a, sizeof got);
			wide[w].lut64_u32(v, n, lut, got);
			cr_assert_eq(memcmp(got, want, n + 1), 0, "%s lut64: n %zu", gtr_isa_name(wide[w].isa), n);
		}
	}
}

Test(isa, forcing)
{
	gtr_kernels k;
	cr_assert_eq(gtr_kernels_init(&k, "scalar"), 0);
	cr_assert_eq(k.isa, GTR_ISA_SCALAR);
	cr_assert_eq(gtr_kernels_init(&k, "mmx"), -1);
	const gtr_isa best = gtr_isa_detect();
#if defined(__aarch64__)
	cr_assert_eq(best, GTR_ISA_NEON, "every arm64 CPU has NEON");
#else
	cr_assert_neq(best, GTR_ISA_NEON);
#endif
	/* Each ISA the machine runs is served as itself, not as scalar:
	 * neon on arm64, and on x86 each one up to the best. */
	for (int i = 0; i < GTR_ISA_COUNT; i++) {
		int rc = gtr_kernels_init(&k, gtr_isa_name((gtr_isa)i));
		int ok = i == GTR_ISA_SCALAR || i == (int)best ||
			 (best != GTR_ISA_NEON && i != GTR_ISA_NEON && i < (int)best);
		cr_assert_eq(rc, ok ? 0 : -1, "GTR_ISA=%s: %d", gtr_isa_name((gtr_isa)i), rc);
		if (rc == 0)
			cr_assert_eq(k.isa, (gtr_isa)i);
	}
	cr_assert_str_eq(gtr_isa_name(GTR_ISA_AVX2), "avx2");
	cr_assert_str_eq(gtr_isa_name(GTR_ISA_NEON), "neon");
}

/* ---- the record walk ---------------------------------------------------- */

/*
 * A table of counts for the walk: mostly what Go's v1 tags say (top two
 * bits plus one), which the wide paths guess; some other counts, lists,
 * tags that stop the walk, and counts it does not take.
 */
static void walk_table(uint8_t nvals[256], int stops)
{
	for (int tag = 0; tag < 256; tag++) {
		int r = rand() % 100;
		unsigned n = (unsigned)(tag >> 6) + 1;
		if (r < stops)
			nvals[tag] = 0;
		else if (r < 70)
			nvals[tag] = n == 4 ? GTR_WALK_LIST : (uint8_t)n;
		else if (r < 80)
			nvals[tag] = (uint8_t)(1 + rand() % GTR_WALK_MAXVALS);
		else if (r < 92)
			nvals[tag] = GTR_WALK_LIST;
		else
			nvals[tag] = (uint8_t)(GTR_WALK_MAXVALS + 1 + rand() % 200);
	}
}

/* One value for a record: short mostly, sometimes 8 to 11 bytes or malformed. */
static size_t walk_value(uint8_t *out)
{
	int r = rand() % 100;
	uint64_t v = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
	if (r < 3) {
		/* 9 to 11 continuation bytes, then an end: overlong or not. */
		size_t n = 8 + (size_t)(rand() % 4);
		memset(out, 0x80 | rand(), n);
		out[n] = (uint8_t)(rand() % 3);
		return n + 1;
	}
	int bits = r < 60 ? rand() % 15 : r < 90 ? rand() % 29 : rand() % 65;
	v = bits >= 64 ? v | 1ull << 63 : v & ((1ull << bits) - 1);
	return encode(v, out);
}

/* Records for the table, until `cap` is near; returns the length. */
static size_t walk_stream(uint8_t *out, size_t cap, const uint8_t nvals[256])
{
	size_t len = 0;
	while (len + 64 <= cap) {
		unsigned tag = (unsigned)rand() % 256;
		out[len++] = (uint8_t)tag;
		unsigned n = nvals[tag];
		if (n == GTR_WALK_LIST) {
			uint8_t body[40];
			size_t blen = 0;
			int vals = rand() % 4;
			for (int i = 0; i < vals; i++)
				blen += walk_value(body + blen);
			/* The stated length: right mostly; short, long or huge sometimes. */
			uint64_t say = blen;
			int r = rand() % 10;
			if (r == 0 && say)
				say -= 1 + (uint64_t)rand() % say;
			else if (r == 1)
				say += (uint64_t)rand() % 8;
			else if (r == 2)
				say = (uint64_t)rand() << 20;
			len += encode(say, out + len);
			memcpy(out + len, body, blen);
			len += blen;
		} else {
			if (n == 0 || n > GTR_WALK_MAXVALS)
				n = 1 + (unsigned)rand() % 3;
			if (rand() % 20 == 0)
				n += rand() % 2 ? 1 : -1; /* a count the table does not say */
			for (unsigned i = 0; i < n; i++)
				len += walk_value(out + len);
		}
	}
	return len;
}

/* Every wide walk from p must return, count and sum what the scalar one does. */
static void walk_agree(const uint8_t *p, const uint8_t *end, const uint8_t nvals[256])
{
	static gtr_walk_sums want, got;
	memset(&want, 0, sizeof want);
	want.sum = ((uint64_t)rand() << 33) ^ (uint64_t)rand();
	want.min = want.sum - (uint64_t)(rand() % 1000);
	want.max = want.sum + (uint64_t)(rand() % 1000);
	if (rand() % 4 == 0)
		want.min = want.max = want.sum = UINT64_MAX - (uint64_t)(rand() % 300); /* sums wrap */
	got = want;
	size_t wn = 0;
	size_t w = gtr_uvarint_walk_scalar(p, end, nvals, &want, &wn);
	cr_assert(w <= (size_t)(end - p));
	for (size_t i = 0; i < nwide; i++) {
		const gtr_kernels *k = &wide[i];
		gtr_walk_sums s = got;
		size_t n = SIZE_MAX;
		size_t r = k->uvarint_walk(p, end, nvals, &s, &n);
		cr_assert_eq(r, w, "%s walk: %zu bytes, scalar %zu (len %td)", gtr_isa_name(k->isa), r, w, end - p);
		cr_assert_eq(n, wn, "%s walk: %zu records, scalar %zu", gtr_isa_name(k->isa), n, wn);
		cr_assert_eq(memcmp(&s, &want, sizeof s), 0, "%s walk: sums differ", gtr_isa_name(k->isa));
	}
}

Test(walk, agrees_on_random_records_from_every_offset)
{
	load_wide();
	static uint8_t buf[MAXN];
	static uint8_t nvals[256];
	srand(23);
	for (int round = 0; round < 40; round++) {
		walk_table(nvals, round % 4 == 0 ? 0 : 2);
		size_t len = walk_stream(buf, sizeof buf, nvals);
		/* From every byte: record starts, misaligned ones, and garbage. */
		for (size_t off = 0; off < len; off++)
			walk_agree(buf + off, buf + len, nvals);
	}
}

Test(walk, walks_long_runs)
{
	load_wide();
	static uint8_t buf[MAXN];
	uint8_t nvals[256];
	/* Only well-formed records of the counts the tags say: one call walks
	 * nearly all of it. */
	for (int tag = 0; tag < 256; tag++)
		nvals[tag] = tag >> 6 == 3 ? GTR_WALK_LIST : (uint8_t)((tag >> 6) + 1);
	srand(29);
	size_t len = 0;
	while (len + 64 <= sizeof buf) {
		unsigned tag = (unsigned)rand() % 256;
		buf[len++] = (uint8_t)tag;
		unsigned n = tag >> 6 == 3 ? 0 : (tag >> 6) + 1;
		if (n == 0) {
			uint8_t body[40];
			size_t blen = encode((uint64_t)rand() % 5000, body);
			blen += encode((uint64_t)rand(), body + blen);
			len += encode(blen, buf + len);
			memcpy(buf + len, body, blen);
			len += blen;
		}
		for (unsigned i = 0; i < n; i++)
			len += encode((uint64_t)rand() % (rand() % 2 ? 200 : 1u << 20), buf + len);
	}
	gtr_walk_sums s;
	memset(&s, 0, sizeof s);
	size_t n;
	size_t w = gtr_uvarint_walk_scalar(buf, buf + len, nvals, &s, &n);
	cr_assert(w + GTR_PAD + 40 > len, "walked %zu of %zu", w, len);
	cr_assert(n > 100);
	walk_agree(buf, buf + len, nvals);
}

Test(walk, stops_before_the_end)
{
	load_wide();
	static uint8_t stream[MAXN];
	uint8_t nvals[256];
	srand(31);
	walk_table(nvals, 0);
	size_t slen = walk_stream(stream, sizeof stream, nvals);
	/* Inputs that end where a PROT_NONE page begins: a read past `end` faults. */
	for (size_t len = 0; len <= 400 && len <= slen; len++) {
		uint8_t *p = guarded(len);
		memcpy(p, stream + slen - len, len);
		for (size_t off = 0; off < len && off < 80; off++)
			walk_agree(p + off, p + len, nvals);
		walk_agree(p + len, p + len, nvals);
	}
	/* Only continuation bytes, and lists that claim more than is left. */
	for (int tag = 0; tag < 256; tag++)
		nvals[tag] = GTR_WALK_LIST;
	for (size_t len = 1; len <= 300; len++) {
		uint8_t *p = guarded(len);
		memset(p, 0xff, len);
		walk_agree(p, p + len, nvals);
		for (size_t i = 0; i < len; i++)
			p[i] = i % 3 == 0 ? 0x03 : i % 3 == 1 ? 0x7f : 0x01;
		walk_agree(p, p + len, nvals);
	}
}

/* ---- record lengths ------------------------------------------------------ */

/* Every wide record_lens must write what the scalar one does, for n bytes at p. */
static void lens_agree(const uint8_t *p, size_t n, const uint8_t *end, const uint8_t nvals[256])
{
	static uint8_t want[MAXN + 1], got[MAXN + 1];
	cr_assert(n <= MAXN);
	memset(want, 0xa5, n + 1);
	gtr_record_lens_scalar(p, n, end, nvals, want);
	cr_assert_eq(want[n], 0xa5);
	for (size_t i = 0; i < nwide; i++) {
		memset(got, 0xa5, n + 1);
		wide[i].record_lens(p, n, end, nvals, got);
		for (size_t j = 0; j <= n; j++)
			cr_assert_eq(got[j], want[j], "%s record_lens: out[%zu] = %u, scalar %u (n %zu, room %td)",
				     gtr_isa_name(wide[i].isa), j, got[j], want[j], n, end - p);
	}
}

Test(lens, the_reference_measures_records)
{
	uint8_t nvals[256] = {0};
	nvals[1] = 2;
	nvals[2] = GTR_WALK_LIST;
	nvals[3] = 6;
	uint8_t out[16];
	/* tag 1: two varints (1 byte, 3 bytes); tag 2: a list of 3 bytes. */
	const uint8_t a[] = {1, 5, 0x81, 0x82, 0x03, 2, 3, 0x81, 0x01, 7, 9};
	gtr_record_lens_scalar(a, sizeof a, a + sizeof a, nvals, out);
	cr_assert_eq(out[0], 5);
	cr_assert_eq(out[5], 5);
	cr_assert_eq(out[1], 0, "tag 5 counts nothing");
	/* A list whose length runs past the end, a record cut by the end. */
	gtr_record_lens_scalar(a + 5, 4, a + 9, nvals, out);
	cr_assert_eq(out[0], 0);
	gtr_record_lens_scalar(a, 1, a + 4, nvals, out);
	cr_assert_eq(out[0], 0);
	/* Eight continuation bytes in a row: a varint too long for one load. */
	const uint8_t b[] = {3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1, 1, 1, 1, 1, 1};
	gtr_record_lens_scalar(b, 1, b + sizeof b, nvals, out);
	cr_assert_eq(out[0], 0);
	const uint8_t c[] = {3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1, 1, 1, 1, 1, 1};
	gtr_record_lens_scalar(c, 1, c + sizeof c, nvals, out);
	cr_assert_eq(out[0], 14);
}

Test(lens, agree_on_random_records_from_every_offset)
{
	load_wide();
	static uint8_t buf[MAXN];
	static uint8_t nvals[256];
	srand(37);
	for (int round = 0; round < 60; round++) {
		walk_table(nvals, round % 4 == 0 ? 0 : 2);
		/* Counts up to six values, as v2 events take. */
		for (int tag = 0; tag < 256; tag++)
			if (rand() % 8 == 0)
				nvals[tag] = (uint8_t)(1 + rand() % GTR_LENS_MAXVALS);
		size_t len = walk_stream(buf, sizeof buf, nvals);
		size_t off = (size_t)rand() % 64;
		lens_agree(buf + off, len - off, buf + len, nvals);
		/* The end anywhere, and fewer outputs than bytes. */
		size_t cut = off + (size_t)rand() % (len - off + 1);
		lens_agree(buf + off, (cut - off) / 2, buf + cut, nvals);
	}
}

Test(lens, never_read_past_the_end)
{
	load_wide();
	static uint8_t stream[MAXN];
	uint8_t nvals[256];
	srand(41);
	walk_table(nvals, 0);
	size_t slen = walk_stream(stream, sizeof stream, nvals);
	for (size_t len = 0; len <= 300 && len <= slen; len++) {
		uint8_t *p = guarded(len);
		memcpy(p, stream + slen - len, len);
		lens_agree(p, len, p + len, nvals);
	}
	/* All continuation bytes, all list tags: nothing measures. */
	for (int tag = 0; tag < 256; tag++)
		nvals[tag] = GTR_WALK_LIST;
	for (size_t len = 1; len <= 200; len++) {
		uint8_t *p = guarded(len);
		memset(p, 0xc0, len);
		lens_agree(p, len, p + len, nvals);
	}
}

Test(lens, lists_of_every_length_at_every_offset)
{
	load_wide();
	static uint8_t buf[512];
	uint8_t nvals[256];
	memset(nvals, GTR_WALK_LIST, sizeof nvals);
	nvals[0x01] = 1;
	for (unsigned len = 0; len < 128; len++)
		for (unsigned off = 0; off < 130; off++) {
			memset(buf, 0x01, sizeof buf);
			buf[off] = 0x40;
			buf[off + 1] = (uint8_t)len;
			lens_agree(buf, 300, buf + sizeof buf, nvals);
			lens_agree(buf, off + 2 + len, buf + off + 2 + len, nvals);
		}
}

/* ---- decode32 and lut64 at once -------------------------------------------- */

/*
 * decode32_lut over [p, lim) (reading up to end): the scalar one against
 * marks + decode32_n + lut64, every wide one against the scalar one.
 */
static void d32lut_agree(const uint8_t *p, const uint8_t *lim, const uint8_t *end, const uint8_t lut[64])
{
	static uint32_t want[MAXN + 1], got[MAXN + 1], ref[MAXN + 1];
	static uint8_t wsteps[MAXN + 1], gsteps[MAXN + 1], rsteps[MAXN + 1];
	static uint64_t bits[MAXN / 64 + 2];
	size_t wused = SIZE_MAX, gused;
	ptrdiff_t w = gtr_uvarint_decode32_lut_scalar(p, lim, end, lut, want, wsteps, &wused);
	/* The reference, by the kernels it joins. */
	size_t cnt = gtr_uvarint_marks_scalar(p, lim, bits);
	ptrdiff_t r = cnt ? gtr_uvarint_decode32_n_scalar(p, end, ref, cnt) : 0;
	if (r >= 0) {
		cr_assert_eq(w, (ptrdiff_t)cnt, "scalar decode32_lut: %td, marks %zu", w, cnt);
		cr_assert_eq(wused, (size_t)r, "scalar decode32_lut: used %zu, decode32_n %td", wused, r);
		gtr_lut64_u32_scalar(ref, cnt, lut, rsteps);
		cr_assert_eq(memcmp(want, ref, cnt * sizeof *ref), 0, "scalar decode32_lut: values");
		cr_assert_eq(memcmp(wsteps, rsteps, cnt), 0, "scalar decode32_lut: steps");
	} else {
		cr_assert_eq(w, r, "scalar decode32_lut: %td, decode32_n %td", w, r);
	}
	for (size_t i = 0; i < nwide; i++) {
		gused = SIZE_MAX;
		ptrdiff_t g = wide[i].uvarint_decode32_lut(p, lim, end, lut, got, gsteps, &gused);
		const char *isa = gtr_isa_name(wide[i].isa);
		cr_assert_eq(g, w, "%s decode32_lut: %td, scalar %td (lim %td, end %td)", isa, g, w, lim - p, end - p);
		if (w < 0)
			continue;
		cr_assert_eq(gused, wused, "%s decode32_lut: used %zu, scalar %zu", isa, gused, wused);
		cr_assert_eq(memcmp(got, want, (size_t)w * sizeof *got), 0, "%s decode32_lut: values", isa);
		cr_assert_eq(memcmp(gsteps, wsteps, (size_t)w), 0, "%s decode32_lut: steps", isa);
	}
}

Test(simd, decode32_lut_agrees_with_its_parts)
{
	load_wide();
	static uint8_t stream[MAXN];
	uint8_t lut[64];
	srand(43);
	for (int i = 0; i < 64; i++)
		lut[i] = (uint8_t)(1 + rand() % 9);
	for (int mix = 0; mix < 4; mix++) {
		size_t slen = random_stream(stream, sizeof stream, 500, mix);
		/* Every limit in the first 300 bytes, then at random. */
		for (size_t l = 0; l <= 300 && l <= slen; l++)
			d32lut_agree(stream, stream + l, stream + slen, lut);
		for (int k = 0; k < 300; k++) {
			size_t off = (size_t)rand() % 70, l = off + (size_t)rand() % (slen - off + 1);
			d32lut_agree(stream + off, stream + l, stream + slen, lut);
		}
	}
	/* Long, overlong and cut varints everywhere, as the decode tests make them. */
	for (size_t len = 1; len <= 40; len++)
		for (size_t at = 0; at < 100; at++) {
			memset(stream, 0x01, sizeof stream);
			memset(stream + at, 0xff, len);
			d32lut_agree(stream, stream + 160, stream + 300, lut);
			d32lut_agree(stream, stream + at + len / 2, stream + 300, lut);
		}
	/* Values below 64 written in 2 to 9 bytes (0x80 | v, 0x80..., 0x00):
	 * the table takes the value, not the first byte. */
	for (size_t len = 2; len <= 9; len++)
		for (size_t at = 0; at < 100; at++) {
			for (size_t i = 0; i < 300; i++)
				stream[i] = (uint8_t)(i % 64);
			stream[at] = (uint8_t)(0x80 | at % 64);
			memset(stream + at + 1, 0x80, len - 2);
			stream[at + len - 1] = 0x00;
			d32lut_agree(stream, stream + 200, stream + 300, lut);
		}
}

Test(simd, decode32_lut_never_reads_past_the_end)
{
	load_wide();
	static uint8_t stream[MAXN];
	uint8_t lut[64];
	for (int i = 0; i < 64; i++)
		lut[i] = (uint8_t)i;
	srand(47);
	size_t slen = random_stream(stream, sizeof stream, 400, 1);
	for (size_t len = 0; len <= 300 && len <= slen; len++) {
		uint8_t *p = guarded(len);
		memcpy(p, stream + slen - len, len);
		d32lut_agree(p, p + len, p + len, lut);
		d32lut_agree(p, p + len / 2, p + len, lut);
	}
}
