/*
 * tests/fuzz/fuzz_modes.h: the entry point shared by fuzz_cli.c and
 * fuzz_scan.c. The input is opened strictly, partially and leniently,
 * and each trace that opens goes to the including file's run_all (with
 * the input's size, for choices that should vary with it), whose
 * writers go to `out` on /dev/null.
 */
#ifndef GTR_TESTS_FUZZ_MODES_H
#define GTR_TESTS_FUZZ_MODES_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"
#include "io/out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gtr_out out;
static int devnull = -1;

static void run_all(const gtr_trace *t, size_t salt);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (devnull < 0)
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	static const unsigned modes[] = {0, GTR_OPEN_PARTIAL, GTR_OPEN_LENIENT};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		gtr_trace *t = NULL;
		gtr_error err;
		gtr_error_clear(&err);
		if (gtr_trace_open_ex(&t, data, size, NULL, modes[i], &err) < 0)
			continue;
		run_all(t, size);
		gtr_trace_free(t);
	}
	return 0;
}

#endif
