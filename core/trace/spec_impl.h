/* core/trace/spec_impl.h: the per-family tables behind gtr_specs. Internal. */
#ifndef GTR_CORE_SPEC_IMPL_H
#define GTR_CORE_SPEC_IMPL_H

#include "core/trace/spec.h"

/* Return NULL (and *n = 0) for a version the family does not have. */
const gtr_spec *gtr_v1_specs(int version, size_t *n);
const gtr_spec *gtr_v2_specs(int version, size_t *n);

#endif
