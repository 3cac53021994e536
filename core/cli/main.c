/* core/cli/main.c: the gtr command line. */
#include "core/cli/cli.h"

int main(int argc, char **argv)
{
	return gtr_cli_main(argc, argv);
}
