/* tests/fuzz/fuzz_v2.c: v2 traces (go 1.22 and later): header, index, decode. Seeds: v2 traces. */
#define FUZZ_FAMILY GTR_FAMILY_V2
#include "fuzz_trace.h"
