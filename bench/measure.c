/*
 * bench/measure.c: runs a command once and reports its wall time and
 * peak memory, as one machine-readable line on stdout:
 *
 *   seconds=1.234567 peak_anon_kb=5120 peak_rss_kb=1054720 peak_file_kb=1049600
 *   peak_shmem_kb=0 hwm_kb=1054720 samples=1234 status=0
 *
 * usage: measure [-i FILE] [-o FILE] [-e NAME=VALUE]... -- COMMAND [ARG...]
 *
 * The command's stdin is FILE (-i, default /dev/null), its stdout FILE
 * (-o, default /dev/null); stderr is passed through. -e sets an
 * environment variable for it. An output named .../null must be the null
 * device: were it a regular file, a dump of a big trace would fill the
 * disk, so measure refuses.
 *
 * Memory is sampled from /proc/PID/status every millisecond while the
 * command runs (and once more just before it is reaped):
 *   peak_anon_kb   the largest RssAnon seen: heap, stacks, anonymous
 *                  mappings; the memory the program itself asked for
 *   peak_file_kb   the largest RssFile: pages of mapped files (the
 *                  mmap'd trace) that the kernel may drop and re-read
 *   peak_shmem_kb  the largest RssShmem: memfd/tmpfs pages (a streamed
 *                  input spooled into a memory file)
 *   peak_rss_kb    the largest VmRSS seen (their sum)
 *   hwm_kb         ru_maxrss of the command, the kernel's own high-water
 *                  mark of VmRSS (exact, but file pages included)
 * A peak shorter than the sampling interval can be missed by the
 * sampled figures; hwm_kb cannot miss one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct mem {
	long anon, file, shmem, rss;
} mem;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads the Rss* lines of /proc/PID/status; 0, or -1 once it is gone. */
static int sample(int fd, mem *m)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *p;
	if ((p = strstr(buf, "\nRssAnon:")))
		m->anon = strtol(p + 9, NULL, 10);
	else
		return -1; /* a zombie: its memory is gone */
	if ((p = strstr(buf, "\nRssFile:")))
		m->file = strtol(p + 9, NULL, 10);
	if ((p = strstr(buf, "\nRssShmem:")))
		m->shmem = strtol(p + 10, NULL, 10);
	if ((p = strstr(buf, "\nVmRSS:")))
		m->rss = strtol(p + 7, NULL, 10);
	return 0;
}

static void usage(void)
{
	fputs("usage: measure [-i FILE] [-o FILE] [-e NAME=VALUE]... -- COMMAND [ARG...]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *in = "/dev/null", *out = "/dev/null";
	int i = 1;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "-i") == 0)
			in = argv[++i];
		else if (strcmp(argv[i], "-o") == 0)
			out = argv[++i];
		else if (strcmp(argv[i], "-e") == 0) {
			char *kv = argv[++i], *eq = strchr(kv, '=');
			if (!eq)
				usage();
			*eq = 0;
			if (setenv(kv, eq + 1, 1) < 0)
				return 1;
		} else
			usage();
	}
	if (i >= argc)
		usage();
	const char *base = strrchr(out, '/');
	struct stat sb;
	if (strcmp(base ? base + 1 : out, "null") == 0 &&
	    (stat(out, &sb) < 0 || !S_ISCHR(sb.st_mode) || major(sb.st_rdev) != 1 || minor(sb.st_rdev) != 3)) {
		fprintf(stderr, "measure: %s is not the null device (char 1,3)\n", out);
		return 1;
	}
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 1;
	}
	if (pid == 0) {
		int ifd = open(in, O_RDONLY), ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (ifd < 0 || ofd < 0 || dup2(ifd, 0) < 0 || dup2(ofd, 1) < 0) {
			perror("measure: redirect");
			_exit(127);
		}
		execvp(argv[i], argv + i);
		perror("measure: exec");
		_exit(127);
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	int sfd = open(path, O_RDONLY);
	mem peak = {0, 0, 0, 0};
	long samples = 0;
	int status = 0;
	struct rusage ru;
	for (;;) {
		mem m = {0, 0, 0, 0};
		if (sfd >= 0 && sample(sfd, &m) == 0) {
			samples++;
			if (m.anon > peak.anon)
				peak.anon = m.anon;
			if (m.file > peak.file)
				peak.file = m.file;
			if (m.shmem > peak.shmem)
				peak.shmem = m.shmem;
			if (m.rss > peak.rss)
				peak.rss = m.rss;
		}
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("measure: wait4");
			return 1;
		}
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	double dt = now() - t0;
	if (sfd >= 0)
		close(sfd);
	int st = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("seconds=%.6f peak_anon_kb=%ld peak_rss_kb=%ld peak_file_kb=%ld peak_shmem_kb=%ld hwm_kb=%ld "
	       "samples=%ld status=%d\n",
	       dt, peak.anon, peak.rss, peak.file, peak.shmem, ru.ru_maxrss, samples, st);
	return 0;
}
