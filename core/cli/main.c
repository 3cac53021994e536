/* core/cli/main.c: the gtr command line. */
#include "core/cli/cli.h"
#include "io/map.h"
#include "io/outfile.h"

int main(int argc, char **argv)
{
	/* Before any open: no file of ours may take the number of stdout. */
	if (gtr_std_fds() < 0)
		return 1;
	gtr_outfile_signals();
	return gtr_cli_main(argc, argv);
}
