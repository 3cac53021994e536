/* tests/test_outfile.c: io/outfile, whole-file replacement. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "io/outfile.h"

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof dir, "/tmp/gtr-test-outfile-XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void rm_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = 0;
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

/* Entries of dir: how many. */
static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static int write_all(const char *path, const char *text, unsigned flags)
{
	gtr_outfile f;
	const char *what;
	int rc = gtr_outfile_open(&f, path, flags, &what);
	if (rc < 0)
		return rc;
	cr_assert_eq(write(f.fd, text, strlen(text)), (ssize_t)strlen(text));
	return gtr_outfile_commit(&f);
}

Test(outfile, new_file_then_replaced_nothing_left)
{
	mkdir_tmp();
	char p[128];
	snprintf(p, sizeof p, "%s/out.json", dir);
	cr_assert_eq(write_all(p, "one", 0), 0);
	cr_assert_str_eq(slurp(p), "one");
	cr_assert_eq(write_all(p, "two", GTR_OUTFILE_LOCK), 0);
	cr_assert_str_eq(slurp(p), "two");
	cr_assert_eq(entries(), 1);
	rm_tmp();
}

/* A failure names the path it was given, in memory that is still the caller's. */
Test(outfile, missing_directory_names_the_path)
{
	mkdir_tmp();
	char p[128];
	snprintf(p, sizeof p, "%s/no/such/out.json", dir);
	gtr_outfile f;
	const char *what = NULL;
	cr_assert_eq(gtr_outfile_open(&f, p, 0, &what), -ENOENT);
	cr_assert_eq(what, p);
	cr_assert_eq(gtr_outfile_open(&f, p, GTR_OUTFILE_LOCK, &what), -ENOENT);
	cr_assert_not_null(what);
	cr_assert_gt(strlen(what), 0);
	cr_assert_eq(entries(), 0); /* nothing left behind */
	rm_tmp();
}

Test(outfile, through_a_symlink_with_mode_kept)
{
	mkdir_tmp();
	char target[128], link[128];
	snprintf(target, sizeof target, "%s/shared.json", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	put(target, "old");
	cr_assert_eq(chmod(target, 0600), 0);
	cr_assert_eq(symlink("shared.json", link), 0);
	cr_assert_eq(write_all(link, "new", GTR_OUTFILE_LOCK), 0);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link stays a link");
	cr_assert_eq(stat(target, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_str_eq(slurp(target), "new");
	cr_assert_eq(entries(), 2);
	rm_tmp();
}

Test(outfile, abort_leaves_the_old_file)
{
	mkdir_tmp();
	char p[128];
	snprintf(p, sizeof p, "%s/b.json", dir);
	put(p, "old");
	gtr_outfile f;
	const char *what;
	cr_assert_eq(gtr_outfile_open(&f, p, GTR_OUTFILE_LOCK, &what), 0);
	char *buf;
	size_t len;
	cr_assert_eq(gtr_outfile_read(&f, &buf, &len), 0);
	cr_assert_str_eq(buf, "old");
	free(buf);
	cr_assert_eq(write(f.fd, "half", 4), 4);
	gtr_outfile_abort(&f);
	cr_assert_str_eq(slurp(p), "old");
	cr_assert_eq(entries(), 1);
	rm_tmp();
}

Test(outfile, devices_are_written_in_place)
{
	cr_assert_eq(write_all("/dev/null", "x", 0), 0);
	struct stat st;
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
}

Test(outfile, same_file)
{
	mkdir_tmp();
	char a[128], b[128];
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	put(a, "x");
	cr_assert_eq(symlink("a", b), 0);
	cr_assert_eq(gtr_same_file(a, b), 1);
	cr_assert_eq(gtr_same_file(a, "/dev/null"), 0);
	cr_assert_eq(gtr_same_file(a, "/nonexistent"), 0);
	rm_tmp();
}

/* Read-modify-write of one counter by many processes at once: none lost. */
Test(outfile, locked_updates_lose_nothing, .timeout = 60)
{
	mkdir_tmp();
	char p[128];
	snprintf(p, sizeof p, "%s/count", dir);
	enum { PROCS = 8, EACH = 20 };
	for (int k = 0; k < PROCS; k++) {
		if (fork() == 0) {
			for (int i = 0; i < EACH; i++) {
				gtr_outfile f;
				const char *what;
				if (gtr_outfile_open(&f, p, GTR_OUTFILE_LOCK, &what) < 0)
					_exit(1);
				char *buf;
				size_t len;
				if (gtr_outfile_read(&f, &buf, &len) < 0)
					_exit(2);
				long v = buf ? atol(buf) : 0;
				free(buf);
				char out[32];
				int n = snprintf(out, sizeof out, "%ld", v + 1);
				if (write(f.fd, out, (size_t)n) != n || gtr_outfile_commit(&f) < 0)
					_exit(3);
			}
			_exit(0);
		}
	}
	for (int k = 0; k < PROCS; k++) {
		int st;
		wait(&st);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %x", st);
	}
	cr_assert_eq(atol(slurp(p)), PROCS * EACH);
	cr_assert_eq(entries(), 1);
	rm_tmp();
}
