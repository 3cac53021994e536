/* io/unpack.c: gzip (zlib) and zstd streams into a file, with a size cap. */
#include "unpack.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* Output chunk: decompressed into it, then written out. */
enum { OUTSZ = 1 << 20 };

struct gtr_unpack {
	gtr_pack kind;
	int fd;
	uint64_t cap;
	uint64_t in;    /* compressed bytes taken */
	uint64_t out;   /* decompressed bytes written */
	int err;        /* first error, -errno; then nothing more is taken */
	int ended;      /* gzip: the last member ended exactly at the input so far */
	int started;    /* any input at all */
	z_stream z;
	int zinit;
	ZSTD_DStream *zs;
	size_t zleft;   /* zstd: the last ZSTD_decompressStream's hint; 0 at a frame's end */
	uint8_t *buf;   /* OUTSZ bytes, mapped */
	char why[200];
};

gtr_pack gtr_pack_detect(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return GTR_PACK_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return GTR_PACK_ZSTD;
	/* A zstd skippable frame (0x184D2A50 to 0x184D2A5F, little-endian). */
	if (n >= 4 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18)
		return GTR_PACK_ZSTD;
	return GTR_PACK_NONE;
}

const char *gtr_pack_name(gtr_pack k)
{
	switch (k) {
	case GTR_PACK_GZIP: return "gzip";
	case GTR_PACK_ZSTD: return "zstd";
	default: return "none";
	}
}

static int fail(gtr_unpack *u, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(gtr_unpack *u, int code, const char *fmt, ...)
{
	if (u->err)
		return u->err;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->why, sizeof u->why, fmt, ap);
	va_end(ap);
	u->err = code;
	return code;
}

int gtr_unpack_create(gtr_unpack **out, gtr_pack kind, int out_fd, uint64_t cap)
{
	*out = NULL;
	gtr_unpack *u = calloc(1, sizeof *u);
	if (!u)
		return -ENOMEM;
	u->kind = kind;
	u->fd = out_fd;
	u->cap = cap;
	void *b = mmap(NULL, OUTSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u->buf = b == MAP_FAILED ? NULL : b;
	int ok = u->buf != NULL;
	if (ok && kind == GTR_PACK_GZIP) {
		/* 15 + 32: a zlib or gzip header, told apart by zlib. */
		ok = inflateInit2(&u->z, 15 + 32) == Z_OK;
		u->zinit = ok;
	} else if (ok && kind == GTR_PACK_ZSTD) {
		u->zs = ZSTD_createDStream();
		ok = u->zs && !ZSTD_isError(ZSTD_initDStream(u->zs));
	} else if (ok) {
		ok = 0;
	}
	if (!ok) {
		gtr_unpack_free(u);
		return -ENOMEM;
	}
	*out = u;
	return 0;
}

/* Writes buf[0..n) at the end of the output, within the cap. */
static int emit(gtr_unpack *u, size_t n)
{
	if (n == 0)
		return 0;
	if (u->out + n > u->cap)
		return fail(u, -EFBIG,
			    "%s: the input decompresses to more than %llu bytes, the limit "
			    "(compressed byte %llu)",
			    gtr_pack_name(u->kind), (unsigned long long)u->cap, (unsigned long long)u->in);
	for (size_t w = 0; w < n;) {
		ssize_t k = pwrite(u->fd, u->buf + w, n - w, (off_t)(u->out + w));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return fail(u, k < 0 ? -errno : -EIO, "%s: writing the decompressed input: %s",
				    gtr_pack_name(u->kind), strerror(k < 0 ? errno : EIO));
		w += (size_t)k;
	}
	u->out += n;
	return 0;
}

static int feed_gzip(gtr_unpack *u, const uint8_t *p, size_t n)
{
	z_stream *z = &u->z;
	while (n > 0) {
		if (u->ended) {
			/* Another member may follow (pigz, cat a.gz b.gz); anything else is not gzip. */
			if (p[0] != 0x1f)
				return fail(u, -EBADMSG,
					    "gzip: bytes after the end of the compressed stream, at compressed "
					    "byte %llu",
					    (unsigned long long)u->in);
			inflateReset(z);
			u->ended = 0;
		}
		uInt take = n > (1u << 30) ? 1u << 30 : (uInt)n;
		z->next_in = (Bytef *)(uintptr_t)p;
		z->avail_in = take;
		int zr;
		/* On while input is left, or the output filled up and may hold back more. */
		do {
			z->next_out = u->buf;
			z->avail_out = OUTSZ;
			uInt before = z->avail_in;
			zr = inflate(z, Z_NO_FLUSH);
			u->in += before - z->avail_in;
			int rc = emit(u, OUTSZ - z->avail_out);
			if (rc < 0)
				return rc;
			if (zr == Z_NEED_DICT || zr == Z_DATA_ERROR || zr == Z_STREAM_ERROR)
				return fail(u, -EBADMSG, "gzip: corrupt data at compressed byte %llu (%s)",
					    (unsigned long long)u->in, z->msg ? z->msg : "bad stream");
			if (zr == Z_MEM_ERROR)
				return fail(u, -ENOMEM, "gzip: out of memory");
			if (zr == Z_BUF_ERROR && before == z->avail_in && z->avail_out == OUTSZ) {
				if (z->avail_in)
					return fail(u, -EBADMSG, "gzip: corrupt data at compressed byte %llu",
						    (unsigned long long)u->in);
				break;
			}
		} while (zr != Z_STREAM_END && (z->avail_in > 0 || z->avail_out == 0));
		size_t used = take - z->avail_in;
		p += used;
		n -= used;
		if (zr == Z_STREAM_END)
			u->ended = 1;
	}
	return 0;
}

/*
 * zstd does not say where in its input an error lies, only in which
 * piece; pieces of ZPIECE bytes keep that close.
 */
enum { ZPIECE = 16 << 10 };

static int feed_zstd(gtr_unpack *u, const uint8_t *p, size_t n)
{
	while (n > ZPIECE) {
		int rc = feed_zstd(u, p, ZPIECE);
		if (rc < 0)
			return rc;
		p += ZPIECE;
		n -= ZPIECE;
	}
	ZSTD_inBuffer in = {p, n, 0};
	uint64_t start = u->in;
	for (;;) {
		ZSTD_outBuffer out = {u->buf, OUTSZ, 0};
		size_t before = in.pos;
		size_t r = ZSTD_decompressStream(u->zs, &out, &in);
		u->in += in.pos - before;
		if (ZSTD_isError(r))
			return fail(u, -EBADMSG, "zstd: corrupt data between compressed bytes %llu and %llu (%s)",
				    (unsigned long long)start, (unsigned long long)(start + n),
				    ZSTD_getErrorName(r));
		u->zleft = r;
		int rc = emit(u, out.pos);
		if (rc < 0)
			return rc;
		/* Done when the input is used up and the output buffer was not filled. */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

int gtr_unpack_feed(gtr_unpack *u, const uint8_t *p, size_t n)
{
	if (u->err)
		return u->err;
	if (n == 0)
		return 0;
	u->started = 1;
	return u->kind == GTR_PACK_GZIP ? feed_gzip(u, p, n) : feed_zstd(u, p, n);
}

int gtr_unpack_finish(gtr_unpack *u, uint64_t *size)
{
	if (u->err)
		return u->err;
	int cut = !u->started || (u->kind == GTR_PACK_GZIP ? !u->ended : u->zleft != 0);
	if (cut)
		return fail(u, -EBADMSG,
			    "%s: the compressed input ends early, after %llu bytes (%llu bytes "
			    "decompressed): it was cut short",
			    gtr_pack_name(u->kind), (unsigned long long)u->in, (unsigned long long)u->out);
	*size = u->out;
	return 0;
}

const char *gtr_unpack_why(const gtr_unpack *u)
{
	return u ? u->why : "";
}

void gtr_unpack_free(gtr_unpack *u)
{
	if (!u)
		return;
	if (u->zinit)
		inflateEnd(&u->z);
	ZSTD_freeDStream(u->zs);
	if (u->buf)
		munmap(u->buf, OUTSZ);
	free(u);
}
