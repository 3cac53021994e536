/* io/meter.c: a byte progress bar on a terminal line. */
#include "meter.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double gtr_seconds(void)
{
	return (double)now_ns() / 1e9;
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

void gtr_meter_init(gtr_meter *m, int fd, gtr_meter_mode mode)
{
	memset(m, 0, sizeof *m);
	m->fd = fd;
	int tty = isatty(fd);
	m->on = mode == GTR_METER_ON || (mode == GTR_METER_AUTO && tty);
	m->wait = mode == GTR_METER_AUTO;
	m->width = 80;
	struct winsize ws;
	if (tty && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		m->width = ws.ws_col;
	m->t0 = m->phase_t0 = now_ns();
}

void gtr_meter_bytes(char *buf, size_t cap, double b)
{
	if (b < 1024)
		snprintf(buf, cap, "%.0f B", b);
	else if (b < 1024.0 * 1024)
		snprintf(buf, cap, "%.1f KiB", b / 1024);
	else if (b < 1024.0 * 1024 * 1024)
		snprintf(buf, cap, "%.1f MiB", b / (1024.0 * 1024));
	else
		snprintf(buf, cap, "%.2f GiB", b / (1024.0 * 1024 * 1024));
}

void gtr_meter_update(gtr_meter *m, const char *what, uint64_t done, uint64_t total)
{
	if (!m || !m->on)
		return;
	int64_t t = now_ns();
	if (strncmp(m->what, what, sizeof m->what - 1) != 0 || done < m->last_done) {
		snprintf(m->what, sizeof m->what, "%s", what);
		m->phase_t0 = t;
		m->last = 0; /* a new phase shows at once */
	}
	m->last_done = done;
	if (m->wait && t - m->t0 < (int64_t)GTR_METER_DELAY_MS * 1000000)
		return;
	if (m->last && t - m->last < (int64_t)GTR_METER_EVERY_MS * 1000000 && done != total)
		return;
	m->last = t;

	char d[32], tot[32], rate[32] = "";
	gtr_meter_bytes(d, sizeof d, (double)done);
	gtr_meter_bytes(tot, sizeof tot, (double)total);
	double secs = (double)(t - m->phase_t0) / 1e9;
	if (secs > 0.05 && done) {
		gtr_meter_bytes(rate, sizeof rate, (double)done / secs);
		strcat(rate, "/s");
	}
	char tail[128];
	int pct = total ? (int)((double)done / (double)total * 100) : 0;
	if (total)
		snprintf(tail, sizeof tail, "%3d%%  %s/%s  %s", pct > 100 ? 100 : pct, d, tot, rate);
	else
		snprintf(tail, sizeof tail, "%s", done ? d : "");
	char line[512];
	int n = snprintf(line, sizeof line, "\rgtr: %-18.18s ", m->what);
	/* The bar takes what the terminal has left, 10 to 30 columns. */
	size_t used = (size_t)n - 1 + strlen(tail) + 3;
	size_t bar = m->width > used + 10 ? m->width - used - 1 : 0;
	if (bar > 30)
		bar = 30;
	if (total && bar >= 10) {
		size_t fill = (size_t)((double)bar * (double)(done > total ? total : done) / (double)total);
		line[n++] = '[';
		for (size_t i = 0; i < bar; i++)
			line[n++] = i < fill ? '#' : '.';
		line[n++] = ']';
		line[n++] = ' ';
		line[n++] = ' ';
	}
	int k = snprintf(line + n, sizeof line - (size_t)n - 4, "%s", tail);
	n += k > 0 ? k : 0;
	if ((size_t)n > sizeof line - 4)
		n = (int)sizeof line - 4;
	memcpy(line + n, "\033[K", 3);
	put(m->fd, line, (size_t)n + 3);
	m->drawn = 1;
}

void gtr_meter_end(gtr_meter *m)
{
	if (!m || !m->drawn)
		return;
	put(m->fd, "\r\033[K", 4);
	m->drawn = 0;
}
