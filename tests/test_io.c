/* tests/test_io.c: io/map and io/out: streams, shrinking files, limits, descriptors. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/map.h"
#include "io/out.h"

static char *tmpfile_with(const char *content, size_t n)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/gtr-test-io-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, content, n), (ssize_t)n);
	close(fd);
	return path;
}

Test(map, file_both_ways)
{
	char *p = tmpfile_with("go 1.26 trace\0\0\0abc", 19);
	for (int mode = GTR_IO_MMAP; mode <= GTR_IO_READ; mode++) {
		gtr_map m;
		cr_assert_eq(gtr_map_open(&m, p, (gtr_io_mode)mode), 0);
		cr_assert_eq(m.size, 19);
		cr_assert_eq(memcmp(m.data + 16, "abc", 3), 0);
		gtr_map_close(&m);
		gtr_map_close(&m);
	}
	unlink(p);
}

/* ---- streams and io_uring ---------------------------------------------- */

/* Byte i of every test stream: deterministic, not periodic in 4 KiB. */
static uint8_t pattern(size_t i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	return (uint8_t)(x >> 56 ^ x >> 23);
}

static int has_pattern(const gtr_map *m, size_t n)
{
	if (m->size != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (m->data[i] != pattern(i))
			return 0;
	return 1;
}

static char *pattern_file(size_t n)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/gtr-test-io-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	uint8_t buf[4096];
	for (size_t off = 0; off < n;) {
		size_t k = n - off < sizeof buf ? n - off : sizeof buf;
		for (size_t i = 0; i < k; i++)
			buf[i] = pattern(off + i);
		cr_assert_eq(write(fd, buf, k), (ssize_t)k);
		off += k;
	}
	close(fd);
	return path;
}

/*
 * A pipe with a child writing n pattern bytes into it, `chunk` at a time
 * with `pause_us` between writes. Returns the read end; *pid the writer.
 */
static int pipe_writer(size_t n, size_t chunk, unsigned pause_us, pid_t *pid)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	*pid = fork();
	cr_assert(*pid >= 0);
	if (*pid == 0) {
		close(fds[0]);
		signal(SIGPIPE, SIG_DFL);
		static uint8_t buf[1 << 16];
		for (size_t off = 0; off < n;) {
			size_t k = n - off < chunk ? n - off : chunk;
			if (k > sizeof buf)
				k = sizeof buf;
			for (size_t i = 0; i < k; i++)
				buf[i] = pattern(off + i);
			for (size_t w = 0; w < k;) {
				ssize_t r = write(fds[1], buf + w, k - w);
				if (r <= 0)
					_exit(1);
				w += (size_t)r;
			}
			off += k;
			if (pause_us) {
				struct timespec ts = {0, (long)pause_us * 1000};
				nanosleep(&ts, NULL);
			}
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static void reap(pid_t pid)
{
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the writer failed");
}

/* Opens the pipe's read end by path, as a user's /dev/stdin would be. */
static int open_pipe(gtr_map *m, int rfd, gtr_io_mode mode, unsigned flags)
{
	char path[32];
	snprintf(path, sizeof path, "/dev/fd/%d", rfd);
	int rc = gtr_map_open_flags(m, path, mode, flags);
	close(rfd);
	return rc;
}

Test(map, every_mode_on_a_regular_file)
{
	char *p = pattern_file(300000);
	static const gtr_io_mode modes[] = {GTR_IO_AUTO, GTR_IO_MMAP, GTR_IO_READ, GTR_IO_URING};
	static const int how[] = {GTR_IO_MMAP, GTR_IO_MMAP, GTR_IO_READ, GTR_IO_URING};
	for (size_t i = 0; i < 4; i++) {
		gtr_map m;
		cr_assert_eq(gtr_map_open(&m, p, modes[i]), 0, "%s", gtr_io_mode_name(modes[i]));
		cr_assert(has_pattern(&m, 300000), "%s: wrong bytes", gtr_io_mode_name(modes[i]));
		cr_assert_eq(m.how, how[i]);
		cr_assert_eq(m.uring_err, 0);
		gtr_map_close(&m);
	}
	unlink(p);
}

Test(map, every_mode_on_a_pipe)
{
	static const gtr_io_mode modes[] = {GTR_IO_AUTO, GTR_IO_READ, GTR_IO_URING};
	static const int how[] = {GTR_IO_URING, GTR_IO_READ, GTR_IO_URING};
	for (size_t i = 0; i < 3; i++) {
		pid_t pid;
		int rfd = pipe_writer(200000, 7000, 0, &pid);
		gtr_map m;
		cr_assert_eq(open_pipe(&m, rfd, modes[i], 0), 0, "%s", gtr_io_mode_name(modes[i]));
		reap(pid);
		cr_assert(has_pattern(&m, 200000), "%s: wrong bytes", gtr_io_mode_name(modes[i]));
		cr_assert_eq(m.how, how[i], "%s: used %d", gtr_io_mode_name(modes[i]), m.how);
		gtr_map_close(&m);
	}
	/* mmap is for regular files only. */
	pid_t pid;
	int rfd = pipe_writer(10, 10, 0, &pid);
	gtr_map m;
	cr_assert_eq(open_pipe(&m, rfd, GTR_IO_MMAP, 0), -ESPIPE);
	cr_assert_null(m.data);
	waitpid(pid, NULL, 0);
}

Test(map, stdin_pipe_in_small_slow_pieces)
{
	/* Many short reads, some finding the pipe empty: order must hold. */
	pid_t pid;
	int rfd = pipe_writer(100000, 997, 50, &pid);
	cr_assert_eq(dup2(rfd, STDIN_FILENO), STDIN_FILENO);
	close(rfd);
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, "-", GTR_IO_AUTO), 0);
	reap(pid);
	cr_assert_eq(m.how, GTR_IO_URING);
	cr_assert(has_pattern(&m, 100000));
	gtr_map_close(&m);
}

Test(map, nonblocking_pipe)
{
	/* A stdin left O_NONBLOCK: reads find nothing now and then (EAGAIN). */
	for (int mode = GTR_IO_READ; mode <= GTR_IO_URING; mode++) {
		pid_t pid;
		int rfd = pipe_writer(150000, 4096, 200, &pid);
		cr_assert_eq(fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK), 0);
		gtr_map m;
		cr_assert_eq(open_pipe(&m, rfd, (gtr_io_mode)mode, 0), 0, "%s", gtr_io_mode_name((gtr_io_mode)mode));
		reap(pid);
		cr_assert(has_pattern(&m, 150000), "%s", gtr_io_mode_name((gtr_io_mode)mode));
		gtr_map_close(&m);
	}
}

Test(map, large_input_through_a_pipe, .timeout = 60)
{
	/* Tens of MB: many rounds of the buffer ring, a mapping far bigger
	 * than any buffer. */
	enum { N = 48 << 20 };
	for (int mode = GTR_IO_READ; mode <= GTR_IO_URING; mode++) {
		pid_t pid;
		int rfd = pipe_writer(N, 1 << 16, 0, &pid);
		gtr_map m;
		cr_assert_eq(open_pipe(&m, rfd, (gtr_io_mode)mode, 0), 0);
		reap(pid);
		cr_assert_eq(m.how, mode);
		cr_assert(has_pattern(&m, N), "%s: wrong bytes", gtr_io_mode_name((gtr_io_mode)mode));
		gtr_map_close(&m);
	}
}

Test(map, large_regular_file_through_io_uring, .timeout = 60)
{
	/* Not a multiple of the buffer size: the last read is short. */
	enum { N = (20 << 20) + 12345 };
	char *p = pattern_file(N);
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, p, GTR_IO_URING), 0);
	cr_assert_eq(m.how, GTR_IO_URING);
	cr_assert(has_pattern(&m, N));
	gtr_map_close(&m);
	unlink(p);
}

Test(map, empty_inputs)
{
	char *p = pattern_file(0);
	for (int mode = GTR_IO_AUTO; mode <= GTR_IO_URING; mode++) {
		gtr_map m;
		cr_assert_eq(gtr_map_open(&m, p, (gtr_io_mode)mode), 0);
		cr_assert_eq(m.size, 0);
		cr_assert_null(m.data);
		gtr_map_close(&m);
	}
	unlink(p);
	static const gtr_io_mode modes[] = {GTR_IO_AUTO, GTR_IO_READ, GTR_IO_URING};
	for (size_t i = 0; i < 3; i++) {
		pid_t pid;
		int rfd = pipe_writer(0, 1, 0, &pid);
		gtr_map m;
		cr_assert_eq(open_pipe(&m, rfd, modes[i], 0), 0);
		reap(pid);
		cr_assert_eq(m.size, 0);
		cr_assert_null(m.data);
		gtr_map_close(&m);
	}
}

Test(map, falls_back_to_read_when_io_uring_is_refused)
{
	pid_t pid;
	int rfd = pipe_writer(500000, 30000, 0, &pid);
	gtr_map m;
	cr_assert_eq(open_pipe(&m, rfd, GTR_IO_AUTO, GTR_MAP_NO_URING), 0);
	reap(pid);
	cr_assert_eq(m.how, GTR_IO_READ);
	cr_assert_eq(m.uring_err, EPERM);
	cr_assert(has_pattern(&m, 500000));
	gtr_map_close(&m);

	/* A regular file asked for with --io=uring, refused: read from its start. */
	char *p = pattern_file(70000);
	cr_assert_eq(gtr_map_open_flags(&m, p, GTR_IO_URING, GTR_MAP_NO_URING), 0);
	cr_assert_eq(m.how, GTR_IO_READ);
	cr_assert_eq(m.uring_err, EPERM);
	cr_assert(has_pattern(&m, 70000));
	gtr_map_close(&m);
	/* The flag does not touch the mmap path. */
	cr_assert_eq(gtr_map_open_flags(&m, p, GTR_IO_AUTO, GTR_MAP_NO_URING), 0);
	cr_assert_eq(m.how, GTR_IO_MMAP);
	cr_assert_eq(m.uring_err, 0);
	gtr_map_close(&m);
	unlink(p);
}

/* The line of /proc/self/maps that holds address p, or "". */
static const char *mapping_of(const void *p)
{
	static char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	cr_assert(f);
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)p >= lo && (uintptr_t)p < hi) {
			fclose(f);
			return line;
		}
	}
	fclose(f);
	return "";
}

Test(map, stream_bytes_are_not_in_the_heap)
{
	/* The span is a mapping of the memory file, whichever way it was filled. */
	for (int mode = GTR_IO_READ; mode <= GTR_IO_URING; mode++) {
		pid_t pid;
		int rfd = pipe_writer(10000, 10000, 0, &pid);
		gtr_map m;
		cr_assert_eq(open_pipe(&m, rfd, (gtr_io_mode)mode, 0), 0);
		reap(pid);
		const char *line = mapping_of(m.data);
		cr_assert(strstr(line, "memfd:gtr-input"), "%s: the span is in [%s]",
			  gtr_io_mode_name((gtr_io_mode)mode), line);
		gtr_map_close(&m);
	}
}

Test(map, mode_names)
{
	cr_assert_str_eq(gtr_io_mode_name(GTR_IO_URING), "uring");
	cr_assert_str_eq(gtr_io_mode_name(GTR_IO_READ), "read");
	cr_assert_str_eq(gtr_io_mode_name(GTR_IO_MMAP), "mmap");
	cr_assert_str_eq(gtr_io_mode_name(GTR_IO_AUTO), "auto");
}

Test(map, errors)
{
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, "/nonexistent/x", GTR_IO_AUTO), -ENOENT);
	cr_assert_eq(gtr_map_open(&m, "/tmp", GTR_IO_AUTO), -EISDIR);
	cr_assert_eq(gtr_map_open(&m, "/dev/null", GTR_IO_AUTO), 0);
	cr_assert_eq(m.size, 0);
	gtr_map_close(&m);
}

Test(out, buffers_numbers_and_big_writes)
{
	char path[] = "/tmp/gtr-test-out-XXXXXX";
	int fd = mkstemp(path);
	static gtr_out o;
	gtr_out_init(&o, fd);
	gtr_out_u64(&o, 18446744073709551615ull);
	gtr_out_char(&o, ' ');
	gtr_out_i64(&o, -42);
	gtr_out_printf(&o, " %s", "x");
	static char big[3 * GTR_OUT_BUFSZ];
	memset(big, 'y', sizeof big);
	gtr_out_write(&o, big, sizeof big);
	cr_assert_eq(gtr_out_flush(&o), 0);
	off_t n = lseek(fd, 0, SEEK_END);
	cr_assert_eq(n, (off_t)(strlen("18446744073709551615 -42 x") + sizeof big));
	char head[32] = {0};
	cr_assert_eq(pread(fd, head, 26, 0), 26);
	cr_assert_str_eq(head, "18446744073709551615 -42 x");
	close(fd);
	unlink(path);
}

/* ---- a mapped file that shrinks ---------------------------------------- */

Test(shrink, reads_past_the_new_end_give_zeros_not_sigbus)
{
	size_t n = 1 << 20;
	char *p = pattern_file(n);
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, p, GTR_IO_MMAP), 0);
	uint64_t now, at;
	cr_assert_eq(gtr_map_shrank(&m, &now, &at), 0);
	cr_assert_eq(truncate(p, 100000), 0);
	/* Below the new end: the file's bytes; past it: zeros, and recorded. */
	cr_assert_eq(m.data[99999], pattern(99999));
	cr_assert_eq(gtr_map_shrank(&m, &now, &at), 0, "no read past the end yet");
	unsigned sum = 0;
	for (size_t i = 200000; i < n; i++)
		sum += m.data[i];
	cr_assert_eq(sum, 0);
	cr_assert_eq(gtr_map_shrank(&m, &now, &at), 1);
	cr_assert_eq(now, 100000);
	cr_assert_eq(at, 200000 & ~(uint64_t)4095);
	/* A read lower down, past the end, moves the first zero offset down. */
	cr_assert_eq(m.data[102400], 0);
	cr_assert_eq(gtr_map_shrank(&m, &now, &at), 1);
	cr_assert_eq(at, 102400);
	gtr_map_close(&m);
	unlink(p);
}

typedef struct reader {
	const gtr_map *m;
	const atomic_int *cut; /* set once the file was cut */
	uint64_t sum;
	int jumped;
} reader;

/* Reads the whole mapping over and over until the file was cut, then
 * twice more: every thread reads past the new end after the cut, however
 * fast the machine is. */
static void *read_all(void *arg)
{
	reader *r = arg;
	int after = 0;
	while (after < 2) {
		if (atomic_load(r->cut))
			after++;
		for (size_t i = 0; i < r->m->size; i += 512)
			r->sum += r->m->data[i];
	}
	return NULL;
}

Test(shrink, many_threads_survive_a_shrink, .timeout = 60)
{
	size_t n = 8 << 20;
	char *p = pattern_file(n);
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, p, GTR_IO_AUTO), 0);
	pthread_t th[4];
	reader r[4];
	atomic_int cut = 0;
	for (int i = 0; i < 4; i++) {
		r[i] = (reader){.m = &m, .cut = &cut};
		cr_assert_eq(pthread_create(&th[i], NULL, read_all, &r[i]), 0);
	}
	usleep(2000);
	cr_assert_eq(truncate(p, 4096), 0);
	atomic_store(&cut, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	uint64_t now, at;
	cr_assert_eq(gtr_map_shrank(&m, &now, &at), 1);
	cr_assert_eq(now, 4096);
	cr_assert_geq(at, 4096);
	gtr_map_close(&m);
	unlink(p);
}

Test(shrink, a_guard_stops_the_reader_at_the_fault)
{
	size_t n = 1 << 20;
	char *p = pattern_file(n);
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, p, GTR_IO_MMAP), 0);
	cr_assert_eq(truncate(p, 8192), 0);
	volatile size_t reached = 0;
	volatile int jumped = 0;
	gtr_map_guard g;
	gtr_map_guard_push(&g);
	if (sigsetjmp(g.env, 0) == 0) {
		const volatile uint8_t *d = m.data;
		for (size_t i = 0; i < n; i += 4096) {
			(void)d[i];
			reached = i;
		}
		gtr_map_guard_pop(&g);
	} else {
		jumped = 1;
	}
	cr_assert_eq(jumped, 1);
	cr_assert_eq(reached, 4096, "stopped at the first page past the end");
	/* The guard is gone: a later read sees zeros and goes on. */
	cr_assert_eq(m.data[n - 1], 0);
	uint64_t now, at;
	cr_assert_eq(gtr_map_shrank(&m, &now, &at), 1);
	cr_assert_eq(at, 8192);
	gtr_map_close(&m);
	unlink(p);
}

Test(shrink, faults_outside_gtr_maps_still_kill)
{
	char *p = pattern_file(1 << 16);
	gtr_map m;
	cr_assert_eq(gtr_map_open(&m, p, GTR_IO_MMAP), 0); /* the handler is in */
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(p, O_RDONLY);
		volatile uint8_t *q = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE, fd, 0);
		if (ftruncate(open(p, O_WRONLY), 0) < 0)
			_exit(3);
		(void)q[1 << 15];
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	/* Killed by it; under a sanitizer, whose handler was there first, reported and exited. */
	cr_assert((WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS) || (WIFEXITED(st) && WEXITSTATUS(st) != 0),
		  "status %x", st);
	gtr_map_close(&m);
	unlink(p);
}

/* ---- standard descriptors, limits and heads of streams ----------------- */

Test(stdfds, closed_ones_get_a_number_that_fails_as_closed)
{
	pid_t pid = fork();
	if (pid == 0) {
		close(1);
		if (gtr_std_fds() < 0)
			_exit(2);
		int fd = open("/dev/null", O_RDONLY);
		if (fd == 1)
			_exit(3);
		_exit(write(1, "x", 1) < 0 && errno == EBADF ? 0 : 4);
	}
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %x", st);
}

static int head_is_go(void *ctx, const uint8_t *p, size_t n)
{
	*(size_t *)ctx = n;
	return n >= 3 && memcmp(p, "go ", 3) == 0 ? 0 : -EILSEQ;
}

Test(limits, a_stream_is_refused_by_its_head_before_it_is_copied)
{
	/* A writer of endless zeros: refused on its first bytes. */
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		char z[4096] = {0};
		for (;;)
			if (write(pfd[1], z, sizeof z) < 0)
				_exit(0);
	}
	close(pfd[1]);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", pfd[0]);
	static const gtr_io_mode modes[] = {GTR_IO_AUTO, GTR_IO_READ, GTR_IO_URING};
	for (size_t k = 0; k < 3; k++) {
		size_t seen = 0;
		gtr_map m;
		gtr_map_opts o = {.mode = modes[k], .check_head = head_is_go, .ctx = &seen,
				  .head = 16};
		cr_assert_eq(gtr_map_open_opts(&m, path, &o), -EILSEQ);
		cr_assert_eq(seen, 16);
	}
	close(pfd[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(limits, a_stream_past_max_input_is_refused, .timeout = 60)
{
	for (int mode = GTR_IO_READ; mode <= GTR_IO_URING; mode++) {
		int pfd[2];
		cr_assert_eq(pipe(pfd), 0);
		pid_t pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			char z[4096];
			memset(z, 'x', sizeof z);
			memcpy(z, "go 1.26 trace\0\0\0", 16);
			for (;;)
				if (write(pfd[1], z, sizeof z) < 0)
					_exit(0);
		}
		close(pfd[1]);
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", pfd[0]);
		size_t seen = 0;
		gtr_map m;
		gtr_map_opts o = {.mode = (gtr_io_mode)mode, .check_head = head_is_go, .ctx = &seen,
				  .head = 16, .max_input = 3 << 20};
		cr_assert_eq(gtr_map_open_opts(&m, path, &o), -EFBIG, "%s", gtr_io_mode_name(mode));
		close(pfd[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

Test(limits, a_stream_within_max_input_keeps_its_head)
{
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	static const char msg[] = "go 1.26 trace\0\0\0the rest";
	cr_assert_eq(write(pfd[1], msg, sizeof msg), (ssize_t)sizeof msg);
	close(pfd[1]);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", pfd[0]);
	size_t seen = 0;
	gtr_map m;
	gtr_map_opts o = {.check_head = head_is_go, .ctx = &seen, .head = 16, .max_input = 1000};
	cr_assert_eq(gtr_map_open_opts(&m, path, &o), 0);
	cr_assert_eq(m.size, sizeof msg);
	cr_assert_eq(memcmp(m.data, msg, sizeof msg), 0);
	gtr_map_close(&m);
	close(pfd[0]);
}
