/* core/cli/opt.c: getopt_long's conventions over tables of options (opt.h). */
#include "core/cli/opt.h"

#include <stdio.h>
#include <string.h>

void gtr_opt_init(gtr_opt_parser *p, int argc, char **argv, int first, const gtr_opt *a,
		  const gtr_opt *b, const gtr_opt *c)
{
	memset(p, 0, sizeof *p);
	p->argc = argc;
	p->argv = argv;
	p->i = first;
	int n = 0;
	const gtr_opt *tabs[GTR_OPT_TABLES] = {a, b, c};
	for (int k = 0; k < GTR_OPT_TABLES; k++)
		if (tabs[k])
			p->tabs[n++] = tabs[k];
}

const gtr_opt *gtr_opt_find(const gtr_opt *tab, const char *name, size_t n, char short_name)
{
	for (const gtr_opt *o = tab; o && (o->name || o->short_name); o++) {
		if (name && o->name && strlen(o->name) == n && strncmp(o->name, name, n) == 0)
			return o;
		if (!name && short_name && o->short_name == short_name)
			return o;
	}
	return NULL;
}

static const gtr_opt *lookup(const gtr_opt_parser *p, const char *name, size_t n, char short_name)
{
	for (int k = 0; k < GTR_OPT_TABLES && p->tabs[k]; k++) {
		const gtr_opt *o = gtr_opt_find(p->tabs[k], name, n, short_name);
		if (o)
			return o;
	}
	return NULL;
}

/* A long option: "--name", "--name=value", "--name value". */
static int long_opt(gtr_opt_parser *p, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	snprintf(p->flag, sizeof p->flag, "--%.*s", (int)(n < 60 ? n : 60), name);
	const gtr_opt *o = lookup(p, name, n, 0);
	if (!o)
		return GTR_OPT_UNKNOWN;
	p->opt = o;
	if (eq) {
		p->val = eq + 1;
		return o->arg == GTR_OPT_NONE ? GTR_OPT_NO_VALUE : o->id;
	}
	if (o->arg == GTR_OPT_REQUIRED) {
		if (p->i >= p->argc)
			return GTR_OPT_MISSING;
		p->val = p->argv[p->i++];
	}
	return o->id;
}

/* The next letter of a group of short options ("-vn5": v, then n with 5). */
static int short_opt(gtr_opt_parser *p)
{
	char c = *p->group++;
	snprintf(p->flag, sizeof p->flag, "-%c", c);
	const gtr_opt *o = lookup(p, NULL, 0, c);
	if (!o) {
		p->group = NULL;
		return GTR_OPT_UNKNOWN;
	}
	p->opt = o;
	if (o->arg == GTR_OPT_NONE) {
		if (!*p->group)
			p->group = NULL;
		return o->id;
	}
	const char *rest = p->group;
	p->group = NULL;
	if (*rest) {
		/* gtr's earlier parser took -n=5 as -n 5; so does this one. */
		p->val = rest[0] == '=' ? rest + 1 : rest;
		return o->id;
	}
	if (o->arg == GTR_OPT_REQUIRED) {
		if (p->i >= p->argc)
			return GTR_OPT_MISSING;
		p->val = p->argv[p->i++];
	}
	return o->id;
}

int gtr_opt_next(gtr_opt_parser *p)
{
	p->opt = NULL;
	p->val = NULL;
	p->flag[0] = 0;
	if (p->group)
		return short_opt(p);
	if (p->i >= p->argc)
		return GTR_OPT_END;
	const char *arg = p->argv[p->i++];
	if (p->ended || arg[0] != '-' || arg[1] == 0) {
		p->val = arg;
		return GTR_OPT_OPERAND;
	}
	if (arg[1] == '-') {
		if (arg[2] == 0) {
			p->ended = 1;
			return gtr_opt_next(p);
		}
		return long_opt(p, arg);
	}
	p->group = arg + 1;
	return short_opt(p);
}
