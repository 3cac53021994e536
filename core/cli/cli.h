/* core/cli/cli.h: the command-line front end. */
#ifndef GTR_CORE_CLI_H
#define GTR_CORE_CLI_H

#include <stddef.h>

#include "core/cli/opt.h"

/* Runs gtr with argv; returns the process exit status (0, 1, 2 or 3). */
int gtr_cli_main(int argc, char **argv);

struct gtr_cli_args;

/* A command: a row of the table that gtr_cli_main dispatches from. */
typedef struct gtr_cli_command {
	const char *name;
	const char *alias;                  /* another name for it, or NULL */
	int (*run)(struct gtr_cli_args *a); /* parses the rest of the line, runs, returns the exit status */
	int which;                          /* for a run function shared by several commands */
	const char *usage;                  /* what gtr NAME --help prints */
	const char *usage_more;             /* the rest of it, or NULL */
	const gtr_opt *opts;                /* its options (the global ones aside) */
	const gtr_opt *shared;              /* options it shares with other commands, or NULL */
} gtr_cli_command;

/* The table of commands, n rows; for tests (every option in its usage). */
const gtr_cli_command *gtr_cli_commands(size_t *n);

/* The options every command takes, and gtr's own usage, which describes them. */
const gtr_opt *gtr_cli_global_opts(void);
const char *gtr_cli_usage(void);

#endif
