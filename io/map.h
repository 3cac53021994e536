/*
 * io/map.h: the input as one read-only byte span.
 *
 * A regular file is mapped read-only with sequential advice. Anything
 * else (a pipe, stdin, a character device) is read into an anonymous,
 * unlinked temporary file that is then mapped, so that the layers above
 * always see one span and the bytes live in the page cache rather than
 * in the process's heap. Nothing here knows about Go traces.
 */
#ifndef GTR_IO_MAP_H
#define GTR_IO_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef enum gtr_io_mode {
	GTR_IO_AUTO = 0, /* mmap for regular files, streaming otherwise */
	GTR_IO_MMAP,
	GTR_IO_READ,
} gtr_io_mode;

typedef struct gtr_map {
	const uint8_t *data; /* NULL when size == 0 */
	size_t size;
	int how;             /* GTR_IO_MMAP or GTR_IO_READ: what was used */
	/* private */
	void *base;
	size_t maplen;
} gtr_map;

/*
 * Opens `path` ("-" is stdin). On failure returns a negative errno value
 * and leaves *m zeroed; the file is never modified. The span is valid
 * until gtr_map_close. Not thread-safe per object; the bytes may be read
 * from any number of threads.
 */
int gtr_map_open(gtr_map *m, const char *path, gtr_io_mode mode);

/* Releases the span; safe on a zeroed or already closed map. */
void gtr_map_close(gtr_map *m);

#endif
