/*
 * core/cli/opt.h: the one option parser of the command line, with
 * getopt_long's conventions.
 *
 * A command declares its options as a table (gtr_opt, ended by an entry
 * whose name is NULL and short_name 0). The parser takes, in argv order:
 *   --name, --name=VALUE, --name VALUE   (long options, spelled in full)
 *   -x, -xVALUE, -x VALUE                (short options)
 *   -abc                                 (short options without values,
 *                                         grouped; the last may take one:
 *                                         -vn5, -vn 5)
 *   --                                   (the end of options: every
 *                                         argument after it is an operand)
 *   -                                    (an operand: standard input)
 * and anything else as an operand, wherever it is on the line (GNU's
 * permutation: operands and options mix). A value that is required is
 * taken from the next argument even when it starts with '-'. For
 * compatibility with gtr's earlier parser, -x=VALUE gives VALUE.
 *
 * The parser neither prints nor allocates; its state is the caller's.
 */
#ifndef GTR_CORE_CLI_OPT_H
#define GTR_CORE_CLI_OPT_H

#include <stddef.h>

typedef enum {
	GTR_OPT_NONE,     /* a flag: --json; --json=1 is an error */
	GTR_OPT_REQUIRED, /* --top N, --top=N, -n N, -nN */
	GTR_OPT_OPTIONAL, /* --color or --color=WHEN (never the next argument) */
} gtr_opt_arg;

typedef struct gtr_opt {
	const char *name;   /* long name without "--", or NULL */
	char short_name;    /* the letter of -x, or 0 */
	gtr_opt_arg arg;    /* whether it takes a value */
	int id;             /* what gtr_opt_next returns for it (>= 0) */
	const char *value;  /* the value's name in the usage text: "N", "D", "FILE" */
	const char *takes;  /* what the value is, for a message when it is missing:
			       "a positive count" ("gtr: CMD: -n: needs a positive count") */
} gtr_opt;

/* What gtr_opt_next returns besides an option's id. */
enum {
	GTR_OPT_END = -1,      /* no argument left */
	GTR_OPT_OPERAND = -2,  /* an operand, in p->val */
	GTR_OPT_UNKNOWN = -3,  /* no such option: p->flag names it */
	GTR_OPT_MISSING = -4,  /* the option (p->opt, p->flag) needs a value and has none */
	GTR_OPT_NO_VALUE = -5, /* a value (p->val) given to a flag that takes none */
};

#define GTR_OPT_TABLES 3

typedef struct gtr_opt_parser {
	/* Set by gtr_opt_init. */
	int argc;
	char **argv;
	const gtr_opt *tabs[GTR_OPT_TABLES]; /* searched in order; NULL ends the list */
	int i;                               /* the next argument */
	const char *group;                   /* the rest of a group of short flags, or NULL */
	int ended;                           /* "--" was seen */
	/* Set by each gtr_opt_next. */
	const gtr_opt *opt; /* the option found, or NULL */
	const char *val;    /* its value (NULL if none), or the operand */
	char flag[64];      /* the option as written, without its value: "-n", "--top" */
} gtr_opt_parser;

/*
 * Starts parsing argv[first..argc-1] with up to GTR_OPT_TABLES tables
 * (NULL for those not used; the first that names an option wins).
 */
void gtr_opt_init(gtr_opt_parser *p, int argc, char **argv, int first, const gtr_opt *a,
		  const gtr_opt *b, const gtr_opt *c);

/*
 * The next option or operand: an option's id (>= 0, with p->opt, p->flag
 * and p->val set), or one of GTR_OPT_END, GTR_OPT_OPERAND, GTR_OPT_UNKNOWN,
 * GTR_OPT_MISSING, GTR_OPT_NO_VALUE. After an error the caller stops.
 */
int gtr_opt_next(gtr_opt_parser *p);

/* Looks an option up in a table by its long name or letter (0: none). Returns NULL if absent. */
const gtr_opt *gtr_opt_find(const gtr_opt *tab, const char *name, size_t n, char short_name);

#endif
