/*
 * io/unpack.h: gzip and zstd inputs, decompressed as they are read.
 *
 * gtr_map_open (io/map.h) uses this to give the layers above the
 * decompressed bytes of a compressed input: the output goes, a chunk at
 * a time, into the memory file that a stream is copied into, so memory
 * follows the decompressed size (plus zlib's 32 KiB window or zstd's,
 * at most 128 MiB) and the compressed input is never held whole.
 * Nothing here knows about Go traces.
 */
#ifndef GTR_IO_UNPACK_H
#define GTR_IO_UNPACK_H

#include <stddef.h>
#include <stdint.h>

typedef enum gtr_pack {
	GTR_PACK_NONE = 0,
	GTR_PACK_GZIP,
	GTR_PACK_ZSTD,
} gtr_pack;

/* Bytes gtr_pack_detect needs to tell: zstd's magic number is 4. */
#define GTR_PACK_HEAD 4

/* The compression of a span by its first bytes (fewer than 4 may do). */
gtr_pack gtr_pack_detect(const uint8_t *p, size_t n);

/* "gzip", "zstd" or "none". */
const char *gtr_pack_name(gtr_pack k);

typedef struct gtr_unpack gtr_unpack;

/*
 * A decompressor of `kind` that appends its output to the file `out_fd`
 * (with pwrite, from offset 0) and refuses to write more than `cap`
 * bytes. Returns 0, or -ENOMEM. One thread.
 */
int gtr_unpack_create(gtr_unpack **u, gtr_pack kind, int out_fd, uint64_t cap);

/*
 * The next n compressed bytes. Returns 0; -EBADMSG for corrupt input;
 * -EFBIG when the output would pass the cap; -ENOMEM; or the -errno of
 * a failed write. After an error the decompressor takes nothing more.
 */
int gtr_unpack_feed(gtr_unpack *u, const uint8_t *p, size_t n);

/*
 * The end of the input: 0 with *size the bytes written, or -EBADMSG
 * when the input stopped inside a compressed stream (or held none).
 */
int gtr_unpack_finish(gtr_unpack *u, uint64_t *size);

/*
 * What went wrong, one line without the file name: "gzip: corrupt
 * data at compressed byte 1234 (invalid block type)". Empty when
 * nothing did.
 */
const char *gtr_unpack_why(const gtr_unpack *u);

void gtr_unpack_free(gtr_unpack *u);

#endif
