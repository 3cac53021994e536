/* io/map.c: mmap for files, a spooled temporary file for streams. */
#include "map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Copies a stream into an unlinked temporary file and returns its fd. */
static int spool(int in, size_t *size)
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
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	size_t total = 0;
	for (;;) {
		ssize_t n = read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;
			free(buf);
			close(fd);
			return e;
		}
		if (n == 0)
			break;
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(fd, buf + w, (size_t)(n - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				int e = -errno;
				free(buf);
				close(fd);
				return e;
			}
			w += k;
		}
		total += (size_t)n;
	}
	free(buf);
	*size = total;
	return fd;
}

int gtr_map_open(gtr_map *m, const char *path, gtr_io_mode mode)
{
	memset(m, 0, sizeof *m);
	int in = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	struct stat st;
	if (fstat(in, &st) < 0) {
		int e = -errno;
		if (in != STDIN_FILENO)
			close(in);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		if (in != STDIN_FILENO)
			close(in);
		return -EISDIR;
	}
	int rc;
	if (S_ISREG(st.st_mode) && mode != GTR_IO_READ) {
		rc = map_fd(m, in, (size_t)st.st_size);
		m->how = GTR_IO_MMAP;
	} else {
		size_t size = 0;
		int fd = spool(in, &size);
		if (fd < 0) {
			rc = fd;
		} else {
			rc = map_fd(m, fd, size);
			close(fd);
		}
		m->how = GTR_IO_READ;
	}
	if (in != STDIN_FILENO)
		close(in);
	if (rc < 0)
		memset(m, 0, sizeof *m);
	return rc;
}

void gtr_map_close(gtr_map *m)
{
	if (m->base)
		munmap(m->base, m->maplen);
	memset(m, 0, sizeof *m);
}
