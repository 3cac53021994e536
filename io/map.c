/* io/map.c: mmap for files; a memory file filled by io_uring or read(2) for streams. */
#include "map.h"
#include "unpack.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files that shrink while mapped ------------------------------------ */

/*
 * The mappings of files, where the SIGBUS handler looks a fault up. A
 * slot is claimed with `used`, filled, then published by storing `base`;
 * the handler reads only published slots. Slots are never freed while a
 * reader of their mapping can run (gtr_map_close is called after every
 * reader is done), so a lookup needs no lock.
 */
enum { NSLOT = 1024 };

typedef struct slot {
	atomic_int used;
	atomic_uintptr_t base;
	size_t len;
	atomic_uint_least64_t fault; /* first offset read as zeros; UINT64_MAX: none */
} slot;

static slot slots[NSLOT];
static struct sigaction old_bus;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;
static int bus_ok;
static uintptr_t page = 4096;
static _Thread_local gtr_map_guard *guard_top;

void gtr_map_guard_push(gtr_map_guard *g)
{
	g->prev = guard_top;
	guard_top = g;
}

void gtr_map_guard_pop(gtr_map_guard *g)
{
	guard_top = g->prev;
}

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, pg = page;
	for (size_t i = 0; si->si_code == BUS_ADRERR && i < NSLOT; i++) {
		uintptr_t b = atomic_load_explicit(&slots[i].base, memory_order_acquire);
		if (!b || a < b || a - b >= slots[i].len)
			continue;
		/* Zero pages from the faulting page to the end: the file has no
		 * bytes there any more, and every later read sees the same zeros. */
		uintptr_t from = a & ~(pg - 1);
		if (from < b)
			from = b;
		size_t end = (size_t)(b + slots[i].len - from);
		end = (end + (size_t)pg - 1) & ~((size_t)pg - 1);
		if (mmap((void *)from, end, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			break; /* cannot repair: die as without a handler */
		uint64_t off = (uint64_t)(from - b), cur = atomic_load(&slots[i].fault);
		while (off < cur && !atomic_compare_exchange_weak(&slots[i].fault, &cur, off)) {
		}
		gtr_map_guard *g = guard_top;
		if (g) {
			guard_top = g->prev;
			siglongjmp(g->env, 1);
		}
		return;
	}
	/* Not ours: whoever handled SIGBUS before, or the default action. */
	if (old_bus.sa_flags & SA_SIGINFO) {
		if (old_bus.sa_sigaction) {
			old_bus.sa_sigaction(sig, si, uc);
			return;
		}
	} else if (old_bus.sa_handler != SIG_DFL && old_bus.sa_handler != SIG_IGN) {
		old_bus.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL); /* the fault repeats on return, and kills */
}

static void bus_install(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	if (pg > 0)
		page = (uintptr_t)pg;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	/* NODEFER: a guard's sigsetjmp(env, 0) need not restore the mask. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	bus_ok = sigaction(SIGBUS, &sa, &old_bus) == 0;
}

/* A slot for [p, p + len), or 0 when none is free (the caller copies instead). */
static int slot_claim(const void *p, size_t len)
{
	pthread_once(&bus_once, bus_install);
	if (!bus_ok)
		return 0;
	for (int i = 0; i < NSLOT; i++) {
		int z = 0;
		if (!atomic_compare_exchange_strong(&slots[i].used, &z, 1))
			continue;
		slots[i].len = len;
		atomic_store(&slots[i].fault, UINT64_MAX);
		atomic_store_explicit(&slots[i].base, (uintptr_t)p, memory_order_release);
		return i + 1;
	}
	return 0;
}

static void slot_release(int s)
{
	if (!s)
		return;
	atomic_store_explicit(&slots[s - 1].base, 0, memory_order_release);
	atomic_store(&slots[s - 1].used, 0);
}

int gtr_map_shrank(const gtr_map *m, uint64_t *now, uint64_t *at)
{
	if (!m->slot)
		return 0;
	uint64_t f = atomic_load(&slots[m->slot - 1].fault);
	if (f == UINT64_MAX)
		return 0;
	struct stat st;
	*now = m->fd1 && fstat(m->fd1 - 1, &st) == 0 ? (uint64_t)st.st_size : f;
	*at = f < m->size ? f : m->size;
	return 1;
}

static int map_fd(gtr_map *m, int fd, size_t size)
{
	if (size == 0)
		return 0;
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	(void)madvise(p, size, MADV_SEQUENTIAL);
	m->base = p;
	m->maplen = size;
	m->data = p;
	m->size = size;
	return 0;
}

/* Maps a file that others may change: guarded, with its descriptor kept. */
static int map_file(gtr_map *m, int fd, size_t size)
{
	int rc = map_fd(m, fd, size);
	if (rc < 0 || size == 0)
		return rc;
	m->slot = slot_claim(m->base, m->maplen);
	if (!m->slot) {
		munmap(m->base, m->maplen);
		m->base = NULL;
		m->data = NULL;
		m->size = m->maplen = 0;
		return 1; /* unguarded: copy it instead */
	}
	int keep = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	m->fd1 = keep >= 0 ? keep + 1 : 0;
	return 0;
}

int gtr_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int nfd = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (nfd < 0)
			return -errno;
		if (nfd != fd) {
			/* A lower one was closed too and took this open: move it. */
			int d = dup2(nfd, fd);
			close(nfd);
			if (d < 0)
				return -errno;
		}
	}
	return 0;
}

/* An unlinked temporary file to copy a stream into; its fd, or -errno. */
static int memory_file(void)
{
	int fd = -1;
#ifdef MFD_CLOEXEC
	fd = memfd_create("gtr-input", MFD_CLOEXEC);
#endif
	if (fd < 0) {
		char tmpl[] = "/tmp/gtr-input-XXXXXX";
		fd = mkstemp(tmpl);
		if (fd < 0)
			return -errno;
		unlink(tmpl);
	}
	return fd;
}

/* Bigger pipe buffers mean fewer, larger reads; the kernel may refuse. */
static void widen_pipe(int in)
{
#ifdef F_SETPIPE_SZ
	struct stat st;
	if (fstat(in, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(in, F_SETPIPE_SZ, 1 << 20);
#else
	(void)in;
#endif
}

/* Buffers of the copy loops: mapped, not from the heap, and dropped after. */
static void *scratch(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---- read(2) ----------------------------------------------------------- */

/*
 * Appends what is left of the stream `in` to `fd` from offset *size on,
 * advancing *size. Returns 0, -EFBIG past `limit` bytes, or -errno.
 */
static int copy_read(int in, int fd, size_t *size, uint64_t limit)
{
	enum { CHUNK = 1 << 20 };
	char *buf = scratch(CHUNK);
	if (!buf)
		return -ENOMEM;
	int rc = 0;
	for (;;) {
		ssize_t n = read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* stdin left non-blocking by whoever made it: wait for data. */
			struct pollfd pfd = {.fd = in, .events = POLLIN};
			if (poll(&pfd, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		if ((uint64_t)*size + (uint64_t)n > limit) {
			rc = -EFBIG;
			break;
		}
		for (ssize_t w = 0; w < n;) {
			ssize_t k = pwrite(fd, buf + w, (size_t)(n - w), (off_t)(*size + (size_t)w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				rc = -errno;
				goto out;
			}
			w += k;
		}
		*size += (size_t)n;
	}
out:
	munmap(buf, CHUNK);
	return rc;
}

/* ---- io_uring ---------------------------------------------------------- */

/*
 * NBUF buffers of BUFSZ: 4 MiB registered, within the 8 MiB that
 * RLIMIT_MEMLOCK allows by default; a pipe widened to 1 MiB fills one
 * buffer per read when the writer keeps up.
 */
enum { NBUF = 4, BUFSZ = 1 << 20, RING = 2 * NBUF + 2 };

enum { B_FREE, B_READ, B_WRITE };
enum { OP_READ = 1, OP_WRITE = 2, OP_POLL = 3 };

typedef struct ubuf {
	uint8_t *p;
	int state;
	size_t len;  /* bytes held */
	size_t want; /* bytes the read in flight asked for (seekable) */
	uint64_t off; /* where they go: file offset = memfd offset */
} ubuf;

typedef struct ucopy {
	struct io_uring ring;
	int in, fd, fixed, seekable;
	ubuf b[NBUF];
	uint8_t *mem;
	uint64_t rpos;      /* seekable: next offset to read; stream: bytes read so far */
	uint64_t limit;     /* seekable: size to copy (the file's size when opened) */
	uint64_t cap;       /* stream: bytes it may have in all (-EFBIG past them) */
	uint64_t eof_at;    /* seekable: where a read first found the end */
	int eof, err;       /* err: first error, -errno */
	int unsupported;    /* a read refused as such (EINVAL...): errno */
	uint64_t got;       /* bytes the reads returned */
	int chain_live;     /* stream: reads of the current chain still in flight */
	int need_poll;      /* stream: the last read found no data (O_NONBLOCK) */
	size_t inflight;
} ucopy;

static inline uint64_t tag(int op, size_t i)
{
	return (uint64_t)op << 32 | i;
}

static struct io_uring_sqe *sqe_get(ucopy *u)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&u->ring);
	if (!s) {
		/* The ring is sized for every buffer's op at once; never full. */
		io_uring_submit(&u->ring);
		s = io_uring_get_sqe(&u->ring);
	}
	return s;
}

static void prep_read(ucopy *u, size_t i, uint64_t off, size_t len, unsigned flags)
{
	ubuf *b = &u->b[i];
	struct io_uring_sqe *s = sqe_get(u);
	if (u->fixed)
		io_uring_prep_read_fixed(s, u->in, b->p + b->len, (unsigned)len, off, (int)i);
	else
		io_uring_prep_read(s, u->in, b->p + b->len, (unsigned)len, off);
	io_uring_sqe_set_data64(s, tag(OP_READ, i));
	s->flags |= (uint8_t)flags;
	b->state = B_READ;
	b->want = len;
	u->inflight++;
}

static void prep_write(ucopy *u, size_t i, size_t from)
{
	ubuf *b = &u->b[i];
	struct io_uring_sqe *s = sqe_get(u);
	if (u->fixed)
		io_uring_prep_write_fixed(s, u->fd, b->p + from, (unsigned)(b->len - from), b->off + from, (int)i);
	else
		io_uring_prep_write(s, u->fd, b->p + from, (unsigned)(b->len - from), b->off + from);
	io_uring_sqe_set_data64(s, tag(OP_WRITE, i) | (uint64_t)from << 40);
	b->state = B_WRITE;
	u->inflight++;
}

/* Queues reads into every free buffer, if reads may start now. */
static void issue_reads(ucopy *u)
{
	if (u->eof || u->err || u->unsupported)
		return;
	if (u->seekable) {
		for (size_t i = 0; i < NBUF && u->rpos < u->limit; i++) {
			if (u->b[i].state != B_FREE)
				continue;
			size_t len = u->limit - u->rpos < BUFSZ ? (size_t)(u->limit - u->rpos) : BUFSZ;
			u->b[i].len = 0;
			u->b[i].off = u->rpos;
			prep_read(u, i, u->rpos, len, 0);
			u->rpos += len;
		}
		if (u->rpos >= u->limit)
			u->eof = 1;
		return;
	}
	/* A stream: one chain at a time, over the buffers free now. */
	if (u->chain_live)
		return;
	size_t idx[NBUF], n = 0;
	for (size_t i = 0; i < NBUF; i++)
		if (u->b[i].state == B_FREE)
			idx[n++] = i;
	if (n == 0)
		return;
	if (u->need_poll) {
		struct io_uring_sqe *s = sqe_get(u);
		io_uring_prep_poll_add(s, u->in, POLLIN);
		io_uring_sqe_set_data64(s, tag(OP_POLL, 0));
		s->flags |= IOSQE_IO_HARDLINK;
		u->inflight++;
		u->need_poll = 0;
	}
	for (size_t j = 0; j < n; j++) {
		u->b[idx[j]].len = 0;
		/* -1: the stream's own position; HARDLINK: in order, even
		 * after a short read (which an ordinary link would cut). */
		prep_read(u, idx[j], (uint64_t)-1, BUFSZ, j + 1 < n ? IOSQE_IO_HARDLINK : 0);
	}
	u->chain_live = (int)n;
}

static int is_unsupported(int res)
{
	return res == -EINVAL || res == -EOPNOTSUPP || res == -ENOSYS || res == -EBADF;
}

static void on_read(ucopy *u, size_t i, int res)
{
	ubuf *b = &u->b[i];
	if (!u->seekable)
		u->chain_live--;
	if (res > 0) {
		u->got += (uint64_t)res;
		if (!u->seekable) {
			if (u->rpos + (uint64_t)res > u->cap) {
				if (!u->err)
					u->err = -EFBIG;
				b->state = B_FREE;
				return;
			}
			/* Chained: completions come in stream order. */
			b->off = u->rpos;
			b->len = (size_t)res;
			u->rpos += (uint64_t)res;
			prep_write(u, i, 0);
			return;
		}
		b->len += (size_t)res;
		if ((size_t)res < b->want) {
			/* Short (a signal, or the file shrinking): ask for the rest. */
			prep_read(u, i, b->off + b->len, b->want - (size_t)res, 0);
			return;
		}
		prep_write(u, i, 0);
		return;
	}
	if (res == 0) {
		if (u->seekable) {
			/* The file got shorter than when it was opened. */
			if (b->off + b->len < u->eof_at)
				u->eof_at = b->off + b->len;
			u->eof = 1;
			if (b->len) {
				prep_write(u, i, 0);
				return;
			}
		} else {
			u->eof = 1;
		}
		b->state = B_FREE;
		return;
	}
	if (u->seekable && (res == -EINTR || res == -EAGAIN)) {
		/* Nothing read: ask again, or the copy would have a hole. */
		prep_read(u, i, b->off + b->len, b->want, 0);
		return;
	}
	b->state = B_FREE;
	if (res == -EINTR)
		return;
	if (res == -EAGAIN && !u->seekable) {
		u->need_poll = 1; /* an O_NONBLOCK stream with nothing yet */
		return;
	}
	if (is_unsupported(res) && !u->unsupported)
		u->unsupported = -res;
	else if (!u->err)
		u->err = res;
}

static void on_write(ucopy *u, size_t i, size_t from, int res)
{
	ubuf *b = &u->b[i];
	if (res < 0) {
		if (!u->err)
			u->err = res;
		b->state = B_FREE;
		return;
	}
	if (res == 0 && b->len > from) {
		if (!u->err)
			u->err = -EIO;
		b->state = B_FREE;
		return;
	}
	if (from + (size_t)res < b->len) {
		prep_write(u, i, from + (size_t)res);
		return;
	}
	b->state = B_FREE;
}

/* Whether the kernel knows every opcode the copy uses. */
static int have_ops(struct io_uring *ring)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	if (!p)
		return 0;
	int ok = io_uring_opcode_supported(p, IORING_OP_READ) && io_uring_opcode_supported(p, IORING_OP_WRITE) &&
		 io_uring_opcode_supported(p, IORING_OP_READ_FIXED) &&
		 io_uring_opcode_supported(p, IORING_OP_WRITE_FIXED) &&
		 io_uring_opcode_supported(p, IORING_OP_POLL_ADD);
	io_uring_free_probe(p);
	return ok;
}

/*
 * Copies `in` into the memory file `fd` with io_uring. A stream goes on
 * from *size (its head, copied already) and may bring `cap` bytes in all.
 * Returns 0 with *size set, -errno on a failure of the input or the copy
 * (-EFBIG past cap), or 1 when io_uring cannot be used here (*why: the
 * errno), before anything was consumed from `in`.
 */
static int copy_uring(int in, int fd, const struct stat *st, unsigned flags, uint64_t cap, size_t *size,
		      int *why, int *fixed)
{
	ucopy *u = scratch(sizeof *u);
	if (!u)
		return -ENOMEM;
	memset(u, 0, sizeof *u);
	u->in = in;
	u->fd = fd;
	u->seekable = S_ISREG(st->st_mode);
	u->limit = u->eof_at = u->seekable ? (uint64_t)st->st_size : UINT64_MAX;
	u->cap = cap;
	if (!u->seekable)
		u->rpos = *size; /* the head, already copied */
	int rc;
	if (flags & GTR_MAP_NO_URING)
		rc = -EPERM;
	else
		rc = io_uring_queue_init(RING, &u->ring, 0);
	if (rc == 0 && !have_ops(&u->ring)) {
		io_uring_queue_exit(&u->ring);
		rc = -ENOSYS; /* a kernel older than 5.6 */
	}
	if (rc < 0) {
		*why = -rc;
		munmap(u, sizeof *u);
		return 1;
	}
	u->mem = scratch((size_t)NBUF * BUFSZ);
	if (!u->mem) {
		io_uring_queue_exit(&u->ring);
		munmap(u, sizeof *u);
		return -ENOMEM;
	}
	struct iovec iov[NBUF];
	for (size_t i = 0; i < NBUF; i++) {
		u->b[i].p = u->mem + i * BUFSZ;
		iov[i].iov_base = u->b[i].p;
		iov[i].iov_len = BUFSZ;
	}
	/* Registered buffers spare the kernel a page walk per op; a low
	 * RLIMIT_MEMLOCK refuses them, and plain ones do the same job. */
	u->fixed = io_uring_register_buffers(&u->ring, iov, NBUF) == 0;
	if (!u->seekable)
		widen_pipe(in);

	issue_reads(u);
	while (u->inflight) {
		rc = io_uring_submit_and_wait(&u->ring, 1);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
			if (!u->err)
				u->err = rc;
			break; /* the ring itself failed: nothing more will complete */
		}
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;
		io_uring_for_each_cqe(&u->ring, head, cqe)
		{
			uint64_t d = io_uring_cqe_get_data64(cqe);
			int op = (int)(d >> 32 & 0xff);
			size_t i = (size_t)(d & 0xffffffff), from = (size_t)(d >> 40);
			u->inflight--;
			if (op == OP_READ)
				on_read(u, i, cqe->res);
			else if (op == OP_WRITE)
				on_write(u, i, from, cqe->res);
			else if (cqe->res < 0 && cqe->res != -EINTR && !u->err)
				u->err = cqe->res;
			seen++;
		}
		io_uring_cq_advance(&u->ring, seen);
		issue_reads(u);
	}
	io_uring_queue_exit(&u->ring);
	munmap(u->mem, (size_t)NBUF * BUFSZ);

	rc = u->err;
	if (!rc && u->unsupported) {
		/* Refused before a byte was taken from the input: the read(2)
		 * path can still do the whole job. */
		if (u->got == 0) {
			*why = u->unsupported;
			rc = 1;
		} else {
			rc = -u->unsupported;
		}
	}
	if (rc == 0) {
		if (u->seekable) {
			uint64_t n = u->limit < u->eof_at ? u->limit : u->eof_at;
			/* A file that shrank: what was written past its end goes. */
			if (n < u->limit && ftruncate(fd, (off_t)n) < 0)
				rc = -errno;
			*size = (size_t)n;
		} else {
			*size = (size_t)u->rpos;
		}
	}
	*fixed = u->fixed;
	munmap(u, sizeof *u);
	return rc;
}

/* ---- opening ----------------------------------------------------------- */

const char *gtr_io_mode_name(gtr_io_mode mode)
{
	switch (mode) {
	case GTR_IO_MMAP: return "mmap";
	case GTR_IO_READ: return "read";
	case GTR_IO_URING: return "uring";
	default: return "auto";
	}
}

/* Reads up to n bytes of a stream, waiting for them; the count, or -errno. */
static ssize_t read_head(int in, uint8_t *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(in, p + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = {.fd = in, .events = POLLIN};
			if (poll(&pfd, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* ---- compressed input ------------------------------------------------- */

static void tell_why(const gtr_map_opts *o, const gtr_unpack *u)
{
	if (o->why && o->whylen)
		snprintf(o->why, o->whylen, "%s", gtr_unpack_why(u));
}

/*
 * Decompresses into `fd`: first head[0..nh), then the rest of `in` (a
 * stream, with read(2), or from offset nh of a regular file). *size: the
 * bytes written; *packed: the compressed bytes read.
 */
static int unpack_fd(int in, int seekable, const uint8_t *head, size_t nh, gtr_pack kind, int fd,
		     uint64_t cap, const gtr_map_opts *o, size_t *size, uint64_t *packed)
{
	enum { CHUNK = 1 << 20 };
	gtr_unpack *u;
	int rc = gtr_unpack_create(&u, kind, fd, cap);
	if (rc < 0)
		return rc;
	uint8_t *buf = scratch(CHUNK);
	if (!buf) {
		gtr_unpack_free(u);
		return -ENOMEM;
	}
	uint64_t pos = nh;
	rc = gtr_unpack_feed(u, head, nh);
	while (rc == 0) {
		ssize_t n = seekable ? pread(in, buf, CHUNK, (off_t)pos) : read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = {.fd = in, .events = POLLIN};
			if (poll(&pfd, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0) {
			uint64_t out = 0;
			rc = gtr_unpack_finish(u, &out);
			*size = (size_t)out;
			break;
		}
		pos += (uint64_t)n;
		rc = gtr_unpack_feed(u, buf, (size_t)n);
	}
	*packed = pos;
	if (rc == -EBADMSG || rc == -EFBIG)
		tell_why(o, u);
	munmap(buf, CHUNK);
	gtr_unpack_free(u);
	return rc;
}

/* A mapped compressed file: its decompressed bytes replace it in *m. */
static int unpack_mapped(gtr_map *m, gtr_pack kind, const gtr_map_opts *o)
{
	int fd = memory_file();
	if (fd < 0)
		return fd;
	gtr_unpack *u;
	int rc = gtr_unpack_create(&u, kind, fd, o->max_input ? o->max_input : GTR_MAP_MAX_INPUT);
	uint64_t out = 0;
	if (rc == 0) {
		/* In pieces, so that the pages read can be dropped behind. */
		enum { PIECE = 8 << 20 };
		for (size_t off = 0; off < m->size && rc == 0; off += PIECE) {
			size_t n = m->size - off < PIECE ? m->size - off : PIECE;
			rc = gtr_unpack_feed(u, m->data + off, n);
			(void)madvise((void *)((uintptr_t)m->data + off), n, MADV_DONTNEED);
		}
		if (rc == 0)
			rc = gtr_unpack_finish(u, &out);
		if (rc == -EBADMSG || rc == -EFBIG)
			tell_why(o, u);
		gtr_unpack_free(u);
	}
	if (rc == 0) {
		uint64_t packed = m->size;
		gtr_map_close(m);
		rc = map_fd(m, fd, (size_t)out);
		m->how = GTR_IO_MMAP;
		m->packed = kind;
		m->packed_size = packed;
	}
	close(fd);
	return rc;
}

/* Copies `in` into a memory file and maps it. */
static int spool(gtr_map *m, int in, const struct stat *st, const gtr_map_opts *o)
{
	int fd = memory_file();
	if (fd < 0)
		return fd;
	size_t size = 0;
	int rc = 1;
	uint64_t cap = o->max_input ? o->max_input : GTR_MAP_MAX_INPUT;
	int unpack = !(o->flags & GTR_MAP_NO_UNPACK);
	if (S_ISREG(st->st_mode) && unpack) {
		uint8_t head[GTR_PACK_HEAD];
		ssize_t n = pread(in, head, sizeof head, 0);
		gtr_pack kind = n > 0 ? gtr_pack_detect(head, (size_t)n) : GTR_PACK_NONE;
		if (kind) {
			rc = unpack_fd(in, 1, NULL, 0, kind, fd, cap, o, &size, &m->packed_size);
			m->how = GTR_IO_READ;
			m->packed = kind;
			goto mapit;
		}
	}
	if (!S_ISREG(st->st_mode) && (o->check_head || unpack)) {
		/* A stream's head is looked at before the rest is read. */
		uint8_t head[4096];
		size_t want = o->check_head && o->head < sizeof head ? o->head : 0;
		if (unpack && want < GTR_PACK_HEAD)
			want = GTR_PACK_HEAD;
		ssize_t n = read_head(in, head, want);
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		gtr_pack kind = unpack ? gtr_pack_detect(head, (size_t)n) : GTR_PACK_NONE;
		if (kind) {
			rc = unpack_fd(in, 0, head, (size_t)n, kind, fd, cap, o, &size, &m->packed_size);
			m->how = GTR_IO_READ;
			m->packed = kind;
			goto mapit;
		}
		if (o->check_head && (rc = o->check_head(o->ctx, head, (size_t)n)) != 0)
			goto out;
		if ((uint64_t)n > cap) {
			rc = -EFBIG;
			goto out;
		}
		if (n > 0 && pwrite(fd, head, (size_t)n, 0) != n) {
			rc = errno ? -errno : -EIO;
			goto out;
		}
		size = (size_t)n;
		rc = 1;
	}
	if (o->mode != GTR_IO_READ) {
		int why = 0, fixed = 0;
		rc = copy_uring(in, fd, st, o->flags, cap, &size, &why, &fixed);
		if (rc == 0) {
			m->how = GTR_IO_URING;
			m->uring_fixed = fixed;
		} else if (rc == 1) {
			m->uring_err = why;
			/* Nothing was consumed; a file starts again at its start. */
			if (S_ISREG(st->st_mode)) {
				size = 0;
				if (ftruncate(fd, 0) < 0) {
					rc = -errno;
					goto out;
				}
			}
		}
	}
	if (rc == 1) {
		m->how = GTR_IO_READ;
		if (!S_ISREG(st->st_mode))
			widen_pipe(in);
		rc = copy_read(in, fd, &size, S_ISREG(st->st_mode) ? UINT64_MAX : cap);
	}
mapit:
	if (rc == 0)
		rc = map_fd(m, fd, size);
out:
	close(fd);
	return rc;
}

int gtr_map_open_opts(gtr_map *m, const char *path, const gtr_map_opts *opts)
{
	memset(m, 0, sizeof *m);
	gtr_map_opts o = {.mode = GTR_IO_AUTO};
	if (opts)
		o = *opts;
	if (o.why && o.whylen)
		o.why[0] = 0;
	int in = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	struct stat st;
	int rc;
	if (fstat(in, &st) < 0) {
		rc = -errno;
	} else if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
	} else if (S_ISREG(st.st_mode) && (o.mode == GTR_IO_AUTO || o.mode == GTR_IO_MMAP)) {
		rc = map_file(m, in, (size_t)st.st_size);
		m->how = GTR_IO_MMAP;
		if (rc == 1) /* no guard left for it: a copy cannot shrink */
			rc = spool(m, in, &st,
				   &(gtr_map_opts){.mode = GTR_IO_READ, .flags = o.flags,
						   .max_input = o.max_input, .why = o.why, .whylen = o.whylen});
		gtr_pack kind = GTR_PACK_NONE;
		if (rc == 0 && !(o.flags & GTR_MAP_NO_UNPACK) && !m->packed)
			kind = gtr_pack_detect(m->data, m->size);
		if (kind)
			rc = unpack_mapped(m, kind, &o);
	} else if (o.mode == GTR_IO_MMAP) {
		rc = -ESPIPE; /* mmap needs a regular file */
	} else {
		/* A regular file read with read(2) is read from where stdin's
		 * position is; with io_uring (offsets) from its start, as mmap. */
		rc = spool(m, in, &st, &o);
	}
	if (rc == 0 && o.check_head && (S_ISREG(st.st_mode) || m->packed))
		rc = o.check_head(o.ctx, m->data, m->size < o.head ? m->size : o.head);
	if (in != STDIN_FILENO)
		close(in);
	if (rc < 0)
		gtr_map_close(m);
	return rc;
}

int gtr_map_open_flags(gtr_map *m, const char *path, gtr_io_mode mode, unsigned flags)
{
	return gtr_map_open_opts(m, path, &(gtr_map_opts){.mode = mode, .flags = flags});
}

int gtr_map_open(gtr_map *m, const char *path, gtr_io_mode mode)
{
	return gtr_map_open_flags(m, path, mode, 0);
}

void gtr_map_close(gtr_map *m)
{
	slot_release(m->slot);
	if (m->base)
		munmap(m->base, m->maplen);
	if (m->fd1)
		close(m->fd1 - 1);
	memset(m, 0, sizeof *m);
}

static void *prefault_run(void *arg)
{
	const gtr_prefault *pf = arg;
	volatile uint8_t sink = 0;
	for (size_t o = 0; o < pf->n; o += (size_t)16 << 10)
		sink ^= pf->p[o];
	(void)sink;
	return NULL;
}

int gtr_prefault_start(gtr_prefault *pf, const void *p, size_t n)
{
	pf->p = p;
	pf->n = n;
	pf->running = n > 0 && pthread_create(&pf->thread, NULL, prefault_run, pf) == 0;
	return pf->running ? 0 : -1;
}

void gtr_prefault_join(gtr_prefault *pf)
{
	if (pf->running)
		pthread_join(pf->thread, NULL);
	pf->running = 0;
}
