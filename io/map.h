/*
 * io/map.h: the input as one read-only byte span.
 *
 * A regular file is mapped read-only with sequential advice. Anything
 * else (a pipe, stdin, a socket, a character device) is copied into an
 * anonymous memory file (memfd) that is then mapped, so that the layers
 * above always see one span and the bytes live in the page cache rather
 * than in the process's heap. The copy is made with io_uring when the
 * kernel allows it, with read(2) when it does not (containers often
 * forbid io_uring). Nothing here knows about Go traces.
 *
 * The io_uring copy: a ring of registered buffers (plain buffers when
 * registering is refused, e.g. by RLIMIT_MEMLOCK), each going read ->
 * write-to-the-memfd -> free. From a stream, the reads of a round are
 * hard-linked into one chain: several are queued in the kernel at once,
 * yet they run one after the other, so each completion's bytes follow
 * the previous ones in the stream (unlinked reads on a pipe could
 * complete in any order). The writes carry their offsets and overlap
 * the next reads. From a seekable file, every read carries its offset
 * and all of them are in flight together.
 */
#ifndef GTR_IO_MAP_H
#define GTR_IO_MAP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gtr_io_mode {
	GTR_IO_AUTO = 0, /* mmap for regular files, io_uring (or read(2)) otherwise */
	GTR_IO_MMAP,     /* regular files only: -ESPIPE for anything else */
	GTR_IO_READ,     /* read(2) into a memory file, for any input */
	GTR_IO_URING,    /* io_uring into a memory file, for any input (a regular
			  * file is copied too); read(2) when io_uring is refused */
} gtr_io_mode;

/* Flags of gtr_map_open_flags. */
enum {
	/*
	 * Behave as if io_uring_setup had been refused with EPERM, as under
	 * a seccomp filter: how tests reach the read(2) fallback on machines
	 * where io_uring works. The CLI sets it when GTR_IO_URING_DISABLE=1.
	 */
	GTR_MAP_NO_URING = 1u << 0,
};

typedef struct gtr_map {
	const uint8_t *data; /* NULL when size == 0 */
	size_t size;
	int how;             /* what was used: GTR_IO_MMAP, GTR_IO_URING or GTR_IO_READ */
	int uring_err;       /* io_uring was wanted but refused: the positive errno
			      * it failed with (how is then GTR_IO_READ); else 0 */
	int uring_fixed;     /* with GTR_IO_URING: 1 if the buffers were registered */
	/* private */
	void *base;
	size_t maplen;
} gtr_map;

/* "mmap", "read", "uring" or "auto". */
const char *gtr_io_mode_name(gtr_io_mode mode);

/*
 * Opens `path` ("-" is stdin). On failure returns a negative errno value
 * and leaves *m zeroed; the file is never modified. The span is valid
 * until gtr_map_close. Not thread-safe per object; the bytes may be read
 * from any number of threads.
 */
int gtr_map_open(gtr_map *m, const char *path, gtr_io_mode mode);

/* gtr_map_open with GTR_MAP_* flags. */
int gtr_map_open_flags(gtr_map *m, const char *path, gtr_io_mode mode, unsigned flags);

/* Releases the span; safe on a zeroed or already closed map. */
void gtr_map_close(gtr_map *m);

/*
 * Reading a mapped file faults its pages in (a few pages a fault); a
 * thread that reads ahead of another takes those faults for it. A
 * prefault reads one byte in every 16 KiB of [p, p + n) on a thread of
 * its own, from gtr_prefault_start to gtr_prefault_join. Nothing is
 * written. Start returns 0, or -1 when no thread could be made (join is
 * then a no-op).
 */
typedef struct gtr_prefault {
	const uint8_t *p;
	size_t n;
	int running;
	pthread_t thread;
} gtr_prefault;

int gtr_prefault_start(gtr_prefault *pf, const void *p, size_t n);
void gtr_prefault_join(gtr_prefault *pf);

#endif
