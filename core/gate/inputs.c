/* core/gate/inputs.c: the walk below check's directories. */
#include "core/gate/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct ivec {
	gtr_check_input *v;
	size_t n, cap;
} ivec;

static int ivec_add(ivec *iv, const char *name, const char *path, const char *error)
{
	if (iv->n == iv->cap) {
		size_t ncap = iv->cap ? iv->cap * 2 : 64;
		gtr_check_input *nv = realloc(iv->v, ncap * sizeof *nv);
		if (!nv)
			return -1;
		iv->v = nv;
		iv->cap = ncap;
	}
	gtr_check_input *in = &iv->v[iv->n];
	in->name = strdup(name);
	in->path = strdup(path);
	in->error = error ? strdup(error) : NULL;
	in->case_name = NULL;
	if (!in->name || !in->path || (error && !in->error) || gtr_check_input_case(in) < 0) {
		free(in->name);
		free(in->path);
		free(in->error);
		free(in->case_name);
		return -1;
	}
	iv->n++;
	return 0;
}

/* The number a run file's base name is before its extension ("3.trace"), or -1. */
static long run_number(const char *base)
{
	const char *dot = strrchr(base, '.');
	size_t n = dot ? (size_t)(dot - base) : strlen(base);
	if (n == 0 || n > 9)
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (base[i] < '0' || base[i] > '9')
			return -1;
		v = v * 10 + (base[i] - '0');
	}
	return v;
}

int gtr_check_input_case(gtr_check_input *in)
{
	free(in->case_name);
	const char *slash = strrchr(in->name, '/');
	in->run = slash ? run_number(slash + 1) : -1;
	in->case_name = in->run >= 0 ? strndup(in->name, (size_t)(slash - in->name)) : strdup(in->name);
	return in->case_name ? 0 : -1;
}

int gtr_check_input_cmp(const gtr_check_input *a, const gtr_check_input *b)
{
	int c = strcmp(a->case_name, b->case_name);
	if (c)
		return c;
	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	return strcmp(a->name, b->name);
}

void gtr_check_inputs_free(gtr_check_input *in, size_t n)
{
	for (size_t i = 0; in && i < n; i++) {
		free(in[i].name);
		free(in[i].path);
		free(in[i].error);
		free(in[i].case_name);
	}
	free(in);
}

void gtr_check_notes_free(gtr_check_notes *notes)
{
	if (!notes)
		return;
	for (size_t i = 0; i < notes->n; i++)
		free(notes->line[i]);
	free(notes->line);
	notes->line = NULL;
	notes->n = 0;
}

static int note(gtr_check_notes *notes, const char *path, const char *what)
{
	if (!notes)
		return 0;
	char **nl = realloc(notes->line, (notes->n + 1) * sizeof *nl);
	if (!nl)
		return -1;
	notes->line = nl;
	size_t len = strlen(path) + strlen(what) + 3;
	if (!(nl[notes->n] = malloc(len)))
		return -1;
	snprintf(nl[notes->n++], len, "%s: %s", path, what);
	return 0;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	int slash = na && a[na - 1] != '/';
	char *p = malloc(na + (size_t)slash + nb + 1);
	if (p) {
		memcpy(p, a, na);
		if (slash)
			p[na] = '/';
		memcpy(p + na + slash, b, nb + 1);
	}
	return p;
}

/* Directories entered, by device and inode: sorted, for a binary search. */
typedef struct dirset {
	struct id {
		dev_t dev;
		ino_t ino;
	} *v;
	size_t n, cap;
} dirset;

static int id_cmp(const struct id *a, const struct id *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

/* 1 if added, 0 if it was there, -1 out of memory. */
static int dirset_add(dirset *s, const struct stat *st)
{
	struct id k = {st->st_dev, st->st_ino};
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = id_cmp(&s->v[mid], &k);
		if (c == 0)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 32;
		struct id *nv = realloc(s->v, c * sizeof *nv);
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = c;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof *s->v);
	s->v[lo] = k;
	s->n++;
	return 1;
}

/* A directory still to read: its path and its name relative to the argument. */
typedef struct todo {
	char *path, *rel;
} todo;

typedef struct walker {
	ivec *iv;
	dirset seen;
	todo *stack;
	size_t n, cap;
	const char *pattern;
	gtr_check_notes *notes;
} walker;

static int push(walker *w, char *path, char *rel)
{
	if (w->n == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 16;
		todo *nv = realloc(w->stack, c * sizeof *nv);
		if (!nv)
			return -1;
		w->stack = nv;
		w->cap = c;
	}
	w->stack[w->n++] = (todo){path, rel};
	return 0;
}

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : "not a regular file";
}

/* Reads one directory: its files become inputs, its directories are pushed. */
static int read_dir(walker *w, const char *dir, const char *rel)
{
	char msg[320];
	DIR *d = opendir(dir);
	if (!d) {
		/* The directory's error is its own entry's; the rest goes on. */
		snprintf(msg, sizeof msg, "cannot read the directory: %s", strerror(errno));
		return ivec_add(w->iv, rel[0] ? rel : dir, dir, msg);
	}
	char **names = NULL;
	size_t n = 0, ncap = 0;
	int rc = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == ncap) {
			size_t c = ncap ? ncap * 2 : 64;
			char **nn = realloc(names, c * sizeof *nn);
			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
			ncap = c;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -1;
			break;
		}
		n++;
		errno = 0;
	}
	if (rc == 0 && errno) {
		snprintf(msg, sizeof msg, "reading the directory failed part way: %s", strerror(errno));
		rc = ivec_add(w->iv, rel[0] ? rel : dir, dir, msg);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_cstr);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *path = join(dir, names[i]);
		char *name = rel[0] ? join(rel, names[i]) : strdup(names[i]);
		int match = fnmatch(w->pattern, names[i], 0) == 0;
		struct stat st;
		if (!path || !name) {
			rc = -1;
		} else if (stat(path, &st) < 0) {
			/* A link to nowhere, a loop of links: an error of that name, if it is one we take. */
			if (match) {
				snprintf(msg, sizeof msg, "cannot read it: %s", errno == ENOENT ? "a dangling symbolic link" : strerror(errno));
				rc = ivec_add(w->iv, name, path, msg);
			}
		} else if (S_ISDIR(st.st_mode)) {
			int added = dirset_add(&w->seen, &st);
			if (added < 0)
				rc = -1;
			else if (added) {
				rc = push(w, path, name);
				if (rc == 0)
					path = name = NULL; /* the stack owns them */
			}
		} else if (!match) {
		} else if (S_ISREG(st.st_mode)) {
			rc = ivec_add(w->iv, name, path, NULL);
		} else {
			/* Reading a FIFO could wait for ever, a device could never end. */
			char what[80];
			snprintf(what, sizeof what, "%s, not a regular file: skipped", kind_of(st.st_mode));
			rc = note(w->notes, path, what);
		}
		free(path);
		free(name);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int walk(walker *w, const char *dir, const struct stat *st)
{
	char *p = strdup(dir), *r = strdup("");
	if (!p || !r || dirset_add(&w->seen, st) < 0 || push(w, p, r) < 0) {
		free(p);
		free(r);
		return -1;
	}
	int rc = 0;
	while (w->n && rc == 0) {
		todo t = w->stack[--w->n];
		rc = read_dir(w, t.path, t.rel);
		free(t.path);
		free(t.rel);
	}
	while (w->n) {
		w->n--;
		free(w->stack[w->n].path);
		free(w->stack[w->n].rel);
	}
	return rc;
}

static int cmp_input(const void *a, const void *b)
{
	return gtr_check_input_cmp(a, b);
}

int gtr_check_collect_notes(char *const *args, size_t nargs, const char *pattern,
			    gtr_check_input **out, size_t *n, gtr_check_notes *notes, char *why,
			    size_t cap)
{
	ivec iv = {0};
	walker w = {.iv = &iv, .pattern = pattern, .notes = notes};
	*out = NULL;
	*n = 0;
	if (notes)
		*notes = (gtr_check_notes){0};
	for (size_t i = 0; i < nargs; i++) {
		struct stat st;
		if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			size_t before = iv.n;
			if (walk(&w, args[i], &st) < 0) {
				snprintf(why, cap, "out of memory");
				goto fail;
			}
			if (iv.n == before) {
				snprintf(why, cap, "%s: no file matches %s", args[i], pattern);
				goto fail;
			}
			continue;
		}
		/* A file, or a path that cannot be read: its error belongs to the trace. */
		const char *base = strrchr(args[i], '/');
		base = base && base[1] ? base + 1 : args[i];
		/* A run file keeps its directory's name: x/json/3.trace is json/3.trace. */
		char runname[4096];
		if (base > args[i] && run_number(base) >= 0) {
			const char *dir = base - 1, *d0 = dir;
			while (d0 > args[i] && d0[-1] != '/')
				d0--;
			if (d0 < dir && (size_t)(dir - d0) + strlen(base) + 2 < sizeof runname) {
				snprintf(runname, sizeof runname, "%.*s/%s", (int)(dir - d0), d0, base);
				base = runname;
			}
		}
		if (ivec_add(&iv, base, args[i], NULL) < 0) {
			snprintf(why, cap, "out of memory");
			goto fail;
		}
	}
	free(w.seen.v);
	free(w.stack);
	w.seen.v = NULL;
	w.stack = NULL;
	if (iv.n == 0) {
		snprintf(why, cap, "no traces given");
		goto fail;
	}
	qsort(iv.v, iv.n, sizeof *iv.v, cmp_input);
	for (size_t i = 1; i < iv.n; i++) {
		const gtr_check_input *x = &iv.v[i - 1], *y = &iv.v[i];
		if (strcmp(x->name, y->name) == 0 || (strcmp(x->case_name, y->case_name) == 0 && x->run == y->run)) {
			snprintf(why, cap, "%s and %s have the same name, %s: traces are matched by name",
				 x->path, y->path, y->name);
			goto fail;
		}
		if (strcmp(x->case_name, y->case_name) == 0 && (x->run < 0) != (y->run < 0)) {
			snprintf(why, cap, "%s and %s both name the case %s: one a run of it, one the whole of it",
				 x->path, y->path, y->case_name);
			goto fail;
		}
	}
	*out = iv.v;
	*n = iv.n;
	return 0;
fail:
	free(w.seen.v);
	free(w.stack);
	gtr_check_inputs_free(iv.v, iv.n);
	gtr_check_notes_free(notes);
	return -1;
}

int gtr_check_collect(char *const *args, size_t nargs, const char *pattern,
		      gtr_check_input **out, size_t *n, char *why, size_t cap)
{
	return gtr_check_collect_notes(args, nargs, pattern, out, n, NULL, why, cap);
}
