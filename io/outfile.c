/* io/outfile.c: whole-file replacement through a temporary, with locks and links. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* ---- names to remove on a signal ---------------------------------------- */

enum { NTMP = 8, TMPMAX = PATH_MAX + 64 };

static struct {
	atomic_int state; /* 0 free, 1 being filled, 2 live */
	char name[TMPMAX];
} tmps[NTMP];

static int tmp_register(const char *name)
{
	if (strlen(name) >= TMPMAX)
		return 0;
	for (int i = 0; i < NTMP; i++) {
		int z = 0;
		if (!atomic_compare_exchange_strong(&tmps[i].state, &z, 1))
			continue;
		strcpy(tmps[i].name, name);
		atomic_store(&tmps[i].state, 2);
		return i + 1;
	}
	return 0;
}

static void tmp_release(int slot)
{
	if (slot)
		atomic_store(&tmps[slot - 1].state, 0);
}

static void on_signal(int sig)
{
	for (int i = 0; i < NTMP; i++)
		if (atomic_load(&tmps[i].state) == 2)
			unlink(tmps[i].name);
	signal(sig, SIG_DFL);
	raise(sig);
}

void gtr_outfile_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* ---- paths -------------------------------------------------------------- */

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return strdup(".");
	if (s == path)
		return strdup("/");
	return strndup(path, (size_t)(s - path));
}

/* Follows symbolic links at the end of path: the file to replace (malloc'd), or NULL with errno. */
static char *resolve(const char *path)
{
	char *p = strdup(path);
	for (int hop = 0; p; hop++) {
		struct stat st;
		if (lstat(p, &st) < 0) {
			if (errno == ENOENT)
				return p; /* a new file, or a dangling link's target: made there */
			free(p);
			return NULL;
		}
		if (!S_ISLNK(st.st_mode))
			return p;
		if (hop == 40) {
			free(p);
			errno = ELOOP;
			return NULL;
		}
		char buf[PATH_MAX];
		ssize_t n = readlink(p, buf, sizeof buf - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		buf[n] = 0;
		char *next;
		if (buf[0] == '/') {
			next = strdup(buf);
		} else {
			char *d = dir_of(p);
			next = d ? malloc(strlen(d) + 1 + (size_t)n + 1) : NULL;
			if (next)
				sprintf(next, "%s/%s", d, buf);
			free(d);
		}
		free(p);
		p = next;
	}
	return NULL;
}

int gtr_same_file(const char *a, const char *b)
{
	struct stat x, y;
	if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return 0;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* ---- locks -------------------------------------------------------------- */

static int flock_wait(int fd)
{
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * Locks the target: the file itself when it exists (again if it was
 * replaced while we waited), else its directory, until it exists.
 */
static int lock_target(gtr_outfile *f, const char **what)
{
	for (int tries = 0; tries < 1000; tries++) {
		int fd = open(f->target, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0) {
			struct stat a, b;
			int rc = flock_wait(fd);
			if (rc < 0) {
				close(fd);
				*what = "locking";
				return rc;
			}
			if (fstat(fd, &a) == 0 && stat(f->target, &b) == 0 && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino) {
				f->lockfd = fd;
				f->lock_is_dir = 0;
				return 0;
			}
			close(fd); /* replaced while we waited: lock the new one */
			continue;
		}
		if (errno != ENOENT) {
			*what = "opening it to lock it";
			return -errno;
		}
		char *d = dir_of(f->target);
		if (!d)
			return -ENOMEM;
		int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(d);
		if (dfd < 0) {
			*what = "opening its directory";
			return -errno;
		}
		int rc = flock_wait(dfd);
		if (rc < 0) {
			close(dfd);
			*what = "locking its directory";
			return rc;
		}
		if (access(f->target, F_OK) < 0 && errno == ENOENT) {
			f->lockfd = dfd;
			f->lock_is_dir = 1;
			return 0;
		}
		close(dfd); /* made while we waited: lock the file */
	}
	*what = "locking (it keeps being replaced)";
	return -EAGAIN;
}

/* ---- the output --------------------------------------------------------- */

int gtr_outfile_open(gtr_outfile *f, const char *path, unsigned flags, const char **what)
{
	memset(f, 0, sizeof *f);
	f->fd = f->lockfd = -1;
	*what = path;
	if (strcmp(path, "-") == 0) {
		f->is_stdout = 1;
		f->fd = STDOUT_FILENO;
		return 0;
	}
	if (!(f->target = resolve(path)))
		return errno ? -errno : -ENOMEM;
	int rc;
	if ((flags & GTR_OUTFILE_LOCK) && (rc = lock_target(f, what)) < 0)
		goto fail;
	struct stat st;
	if (stat(f->target, &st) == 0) {
		f->have_old = 1;
		f->old_st = st;
		if (!S_ISREG(st.st_mode)) {
			/* /dev/null, a FIFO, a terminal: renaming over it would replace it. */
			f->in_place = 1;
			f->fd = open(f->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
			if (f->fd < 0) {
				rc = -errno;
				goto fail;
			}
			return 0;
		}
	}
	char *d = dir_of(f->target);
	if (!d) {
		rc = -ENOMEM;
		goto fail;
	}
#ifdef O_TMPFILE
	/* Unnamed until committed: nothing to leave behind, whatever kills us. */
	if (access("/proc/self/fd", X_OK) == 0) {
		f->fd = open(d, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		f->unnamed = f->fd >= 0;
	}
#endif
	free(d);
	if (f->fd < 0) {
		size_t n = strlen(f->target) + 32;
		if (!(f->tmp = malloc(n))) {
			rc = -ENOMEM;
			goto fail;
		}
		snprintf(f->tmp, n, "%s.tmp.%ld", f->target, (long)getpid());
		f->slot = tmp_register(f->tmp);
		f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (f->fd < 0 && errno == EEXIST) {
			/* Left by a process of our pid that died: ours now. */
			unlink(f->tmp);
			f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		}
		if (f->fd < 0) {
			/* *what stays the path: the name made from it goes below. */
			rc = -errno;
			tmp_release(f->slot);
			f->slot = 0;
			free(f->tmp);
			f->tmp = NULL;
			goto fail;
		}
	}
	return 0;
fail:
	gtr_outfile_abort(f);
	return rc;
}

int gtr_outfile_read(gtr_outfile *f, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (f->lockfd < 0 || f->lock_is_dir)
		return 0;
	struct stat st;
	if (fstat(f->lockfd, &st) < 0)
		return -errno;
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *p = malloc(cap + 1);
	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			char *q = realloc(p, cap * 2 + 1);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
			cap *= 2;
		}
		ssize_t k = pread(f->lockfd, p + n, cap - n, (off_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(p);
			return -e;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	p[n] = 0;
	*buf = p;
	*len = n;
	return 0;
}

static void unlock(gtr_outfile *f)
{
	if (f->lockfd >= 0)
		close(f->lockfd); /* closing drops the flock */
	f->lockfd = -1;
}

int gtr_outfile_commit(gtr_outfile *f)
{
	int rc = 0;
	if (f->is_stdout)
		return 0;
	if (f->in_place) {
		if (close(f->fd) < 0)
			rc = -errno;
		f->fd = -1;
		gtr_outfile_abort(f); /* nothing left to undo: it unlocks and frees */
		return rc;
	}
	/* The old file's permissions and owner; a new one's as open(2) would give. */
	mode_t mode;
	if (f->have_old) {
		mode = f->old_st.st_mode & 07777;
		if (fchown(f->fd, f->old_st.st_uid, f->old_st.st_gid) < 0)
			(void)!fchown(f->fd, (uid_t)-1, f->old_st.st_gid);
	} else {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	}
	if (fchmod(f->fd, mode) < 0 || fsync(f->fd) < 0)
		rc = -errno;
	if (!rc && f->unnamed) {
		/* Named next to the target for the rename, a moment only. */
		size_t n = strlen(f->target) + 32;
		char proc[64];
		if (!(f->tmp = malloc(n))) {
			rc = -ENOMEM;
		} else {
			snprintf(f->tmp, n, "%s.tmp.%ld", f->target, (long)getpid());
			snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
			f->slot = tmp_register(f->tmp);
			unlink(f->tmp);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) < 0)
				rc = -errno;
		}
	}
	if (close(f->fd) < 0 && !rc)
		rc = -errno;
	f->fd = -1;
	if (!rc && rename(f->tmp, f->target) < 0)
		rc = -errno;
	if (!rc) {
		tmp_release(f->slot);
		f->slot = 0;
		free(f->tmp);
		f->tmp = NULL;
		/* The rename itself made durable. */
		char *d = dir_of(f->target);
		int dfd = d ? open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
		free(d);
	}
	gtr_outfile_abort(f);
	return rc;
}

void gtr_outfile_abort(gtr_outfile *f)
{
	if (f->fd >= 0 && !f->is_stdout)
		close(f->fd);
	f->fd = -1;
	if (f->tmp) {
		unlink(f->tmp);
		free(f->tmp);
		f->tmp = NULL;
	}
	tmp_release(f->slot);
	f->slot = 0;
	unlock(f);
	free(f->target);
	f->target = NULL;
}
