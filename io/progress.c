/* io/progress.c: "[done/total] what" on a terminal, rewritten in place. */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void gtr_progress_init(gtr_progress *p, int fd, size_t total)
{
	memset(p, 0, sizeof *p);
	p->fd = fd;
	p->total = total;
	p->on = isatty(fd);
	p->width = 80;
	struct winsize ws;
	if (p->on && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		p->width = ws.ws_col;
	pthread_mutex_init(&p->lock, NULL);
}

static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k <= 0)
			return; /* a display: nothing to do about a failed write */
		s += k;
		n -= (size_t)k;
	}
}

void gtr_progress_step(gtr_progress *p, const char *what, int finished)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (finished)
		p->done++;
	if (p->on) {
		char line[512];
		int n = snprintf(line, sizeof line, "\r[%zu/%zu] ", p->done, p->total);
		if (n < 0)
			n = 0;
		/* Keep the line shorter than the terminal: the end of a long name matters most. */
		size_t room = p->width > (size_t)n + 1 ? p->width - (size_t)n - 1 : 0;
		size_t len = strlen(what);
		if (room > sizeof line - (size_t)n - 8)
			room = sizeof line - (size_t)n - 8;
		if (len > room && room > 3) {
			memcpy(line + n, "...", 3);
			memcpy(line + n + 3, what + len - (room - 3), room - 3);
			n += (int)room;
		} else if (len <= room) {
			memcpy(line + n, what, len);
			n += (int)len;
		}
		memcpy(line + n, "\033[K", 3);
		put(p->fd, line, (size_t)n + 3);
	}
	pthread_mutex_unlock(&p->lock);
}

void gtr_progress_end(gtr_progress *p)
{
	if (!p)
		return;
	if (p->on)
		put(p->fd, "\r\033[K", 4);
	pthread_mutex_destroy(&p->lock);
}
