/* core/spec.c: which table serves which version. */
#include "spec.h"
#include "spec_impl.h"

const gtr_spec *gtr_specs(int version, size_t *n)
{
	*n = 0;
	if (version >= 22)
		return gtr_v2_specs(version, n);
	return gtr_v1_specs(version, n);
}
