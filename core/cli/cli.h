/* core/cli/cli.h: the command-line front end. */
#ifndef GTR_CORE_CLI_H
#define GTR_CORE_CLI_H

/* Runs gtr with argv; returns the process exit status (0, 1, 2 or 3). */
int gtr_cli_main(int argc, char **argv);

#endif
