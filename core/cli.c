/* core/cli.c: subcommands, flags, and turning errors into one line. */
#include "cli.h"

int gtr_cli_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 2;
}
