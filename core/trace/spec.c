/* core/trace/spec.c: which table serves which version. */
#include "core/trace/spec.h"
#include "core/trace/spec_impl.h"
#include "core/trace/trace_impl.h"

const gtr_spec *gtr_specs(int version, size_t *n)
{
	*n = 0;
	const gtr_version_row *row = gtr_version_row_of(version);
	return row ? row->ops->specs(version, n) : NULL;
}
