/* core/main.c: the gtr command line. */
#include "cli.h"

int main(int argc, char **argv)
{
	return gtr_cli_main(argc, argv);
}
