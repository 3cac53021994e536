/* tests/test_io.c: io/map and io/out. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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
