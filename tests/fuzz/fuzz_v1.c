/* tests/fuzz/fuzz_v1.c: v1 traces (go 1.5 to 1.21): header, index, decode. Seeds: v1 traces. */
#define FUZZ_FAMILY GTR_FAMILY_V1
#include "fuzz_trace.h"
