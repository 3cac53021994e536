/*
 * io/outfile.h: replacing a file whole, so that a reader sees the old
 * contents or the new ones and never a mix.
 *
 * The new contents go to a temporary file in the target's directory
 * (an unnamed O_TMPFILE where the file system has them, so that not
 * even kill -9 leaves one behind; else "TARGET.tmp.PID", removed on
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT once gtr_outfile_signals has
 * run), which gtr_outfile_commit syncs and renames over the target.
 *
 * - A symbolic link is written through: its target is replaced and
 *   the link stays (a chain of links is followed, up to 40).
 * - A target that exists keeps its permission bits, and its owner and
 *   group where the process may set them.
 * - A target that is not a regular file (/dev/null, a FIFO, a
 *   terminal) is written in place; "-" is standard output.
 * - With GTR_OUTFILE_LOCK, the target is locked (flock, exclusive)
 *   from open to commit or abort, so that updates of one file by
 *   several processes are serialised; gtr_outfile_read gives the
 *   contents it has under the lock, for a read-modify-write. A missing
 *   target is created under a lock of its directory.
 *
 * One object per output; not thread-safe.
 */
#ifndef GTR_IO_OUTFILE_H
#define GTR_IO_OUTFILE_H

#include <stddef.h>
#include <sys/stat.h>

enum { GTR_OUTFILE_LOCK = 1u << 0 };

typedef struct gtr_outfile {
	int fd;           /* where to write */
	int is_stdout;    /* "-": standard output, nothing to commit */
	int in_place;     /* not a regular file: written in place */
	/* private */
	char *target;     /* the path written, symbolic links resolved */
	char *tmp;        /* a named temporary, or NULL */
	int unnamed;      /* fd is an O_TMPFILE */
	int lockfd;       /* the locked target or directory, or -1 */
	int lock_is_dir;
	int have_old;     /* the target existed: old_st is its status */
	struct stat old_st;
	int slot;         /* 1 + its place among the names removed on a signal */
} gtr_outfile;

/*
 * Opens an output. Returns 0, or a negative errno value with *what
 * naming what failed ("locking", "opening its directory", or the path
 * itself): a static string or `path`, never one that f owned (the
 * failure has freed those).
 */
int gtr_outfile_open(gtr_outfile *f, const char *path, unsigned flags, const char **what);

/*
 * With GTR_OUTFILE_LOCK: the target's contents as they are now, under
 * the lock, in *buf (malloc'd, NUL-terminated; free it) and *len; a
 * missing target gives *buf NULL and returns 0. Else -errno.
 */
int gtr_outfile_read(gtr_outfile *f, char **buf, size_t *len);

/*
 * Makes the written contents the target's: sync, permissions, rename,
 * unlock. Closes fd (not stdout's). Returns 0, or -errno (the temporary
 * is then removed and the target left as it was).
 */
int gtr_outfile_commit(gtr_outfile *f);

/* Drops what was written and unlocks; the target stays as it was. Safe after commit. */
void gtr_outfile_abort(gtr_outfile *f);

/*
 * Installs handlers of SIGINT, SIGTERM, SIGHUP and SIGQUIT that remove
 * the named temporaries still open, then die of the signal as before.
 * Call once, early, from the program (not the library).
 */
void gtr_outfile_signals(void);

/*
 * Whether paths a and b name one existing file (same device and inode,
 * symbolic links followed). 0 when either does not exist.
 */
int gtr_same_file(const char *a, const char *b);

#endif
