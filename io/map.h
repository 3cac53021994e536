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
#include <setjmp.h>
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
	/*
	 * Take a gzip or zstd input as it is. Without this flag, an input
	 * that starts with either's magic number is decompressed as it is
	 * read (io/unpack.h) into a memory file, and the span holds the
	 * decompressed bytes: from a stream, no more of the compressed input
	 * is held than a read's buffer; from a file, the file is mapped and
	 * read through once. The decompressed size counts against
	 * gtr_map_opts.max_input, for files too.
	 */
	GTR_MAP_NO_UNPACK = 1u << 1,
};

typedef struct gtr_map {
	const uint8_t *data; /* NULL when size == 0 */
	size_t size;
	int how;             /* what was used: GTR_IO_MMAP, GTR_IO_URING or GTR_IO_READ */
	int uring_err;       /* io_uring was wanted but refused: the positive errno
			      * it failed with (how is then GTR_IO_READ); else 0 */
	int uring_fixed;     /* with GTR_IO_URING: 1 if the buffers were registered */
	int packed;          /* the input was compressed: its gtr_pack (io/unpack.h); else 0 */
	uint64_t packed_size; /* then: its compressed size */
	/* private */
	void *base;
	size_t maplen;
	int slot;            /* 1 + its place in the table of guarded mappings; 0: none */
	int fd1;             /* 1 + the mapped file's descriptor, kept to tell its size; 0: none */
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

/* The default of gtr_map_opts.max_input: 4 GiB. */
#define GTR_MAP_MAX_INPUT ((uint64_t)4 << 30)

typedef struct gtr_map_opts {
	gtr_io_mode mode;
	unsigned flags;      /* GTR_MAP_* */
	/*
	 * A stream (anything but a regular file) is copied into memory; one
	 * longer than this is refused with -EFBIG once that many bytes have
	 * come, instead of filling the memory. 0: GTR_MAP_MAX_INPUT;
	 * UINT64_MAX: no limit. Regular files are not copied (or have a
	 * size) and are not limited.
	 */
	uint64_t max_input;
	/*
	 * When set, called on the input's first `head` bytes (fewer if the
	 * input is shorter): for a stream, before anything more is read from
	 * it, so that an input that is not what the caller reads is refused
	 * without being copied; for a file, once it is mapped. A nonzero
	 * return (negative) refuses the input: gtr_map_open_opts returns it.
	 */
	int (*check_head)(void *ctx, const uint8_t *p, size_t n);
	void *ctx;
	size_t head;
	/*
	 * When set, receives one line (without the file name) on why a
	 * compressed input was refused: -EBADMSG (corrupt or cut short,
	 * with the compressed byte offset) or -EFBIG (past max_input once
	 * decompressed). Left empty otherwise.
	 */
	char *why;
	size_t whylen;
} gtr_map_opts;

/* gtr_map_open with options; NULL opts: as gtr_map_open(m, path, GTR_IO_AUTO). */
int gtr_map_open_opts(gtr_map *m, const char *path, const gtr_map_opts *opts);

/* Releases the span; safe on a zeroed or already closed map. */
void gtr_map_close(gtr_map *m);

/*
 * A mapped file that shrinks.
 *
 * Another process may truncate or rewrite a file while it is mapped;
 * reading a page past its new end then raises SIGBUS, which would kill
 * the process. gtr_map_open installs (once) a SIGBUS handler that, for a
 * fault inside a mapping made by gtr_map_open, replaces the pages from
 * the faulting one to the mapping's end with zero pages, records the
 * offset, and lets the read go on: every thread that reads the span
 * sees zeros there instead of dying, which the decoders treat as they
 * treat any damaged input. Faults anywhere else go to the handler that
 * was there before (or kill the process as they would have).
 *
 * A caller that trusts what it read must then ask gtr_map_shrank: 1
 * when a read faulted (the results are not those of the file), with the
 * file's size now in *now and the first offset read as zeros in *at; 0
 * when every byte read came from the file. Safe from any thread.
 */
int gtr_map_shrank(const gtr_map *m, uint64_t *now, uint64_t *at);

/*
 * A recovery point, for a reader that would rather stop at once than
 * decode zeros. Per thread, nestable:
 *
 *	gtr_map_guard g;
 *	gtr_map_guard_push(&g);
 *	if (sigsetjmp(g.env, 0) == 0) {
 *		... read the span ...
 *		gtr_map_guard_pop(&g);
 *	} else {
 *		... the file shrank under this thread (already popped):
 *		    drop what this piece of work built, then stop ...
 *	}
 *
 * On a fault of a guarded mapping in this thread, the handler zeroes the
 * rest of the mapping as above, pops the innermost point and jumps to
 * it. Locals changed after sigsetjmp and read in the else branch must be
 * volatile; nothing allocated between push and the fault is freed by the
 * jump, so keep allocations outside or reachable from the caller's
 * state. sigsetjmp(env, 0) is cheap (no signal mask is saved: the
 * handler runs with SIGBUS unblocked).
 */
typedef struct gtr_map_guard {
	sigjmp_buf env;
	struct gtr_map_guard *prev;
} gtr_map_guard;

void gtr_map_guard_push(gtr_map_guard *g);
void gtr_map_guard_pop(gtr_map_guard *g);

/*
 * Makes sure descriptors 0, 1 and 2 are open, so that no file gtr opens
 * later takes one of their numbers and is written to as stdout or read
 * as stdin. A closed one is given /dev/null opened the other way round
 * (0 write-only, 1 and 2 read-only), so that using it still fails with
 * EBADF, as using a closed descriptor would. Returns 0, or -errno.
 */
int gtr_std_fds(void);

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
