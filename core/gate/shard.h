/*
 * core/gate/shard.h: one check split over many processes or machines,
 * and put back together.
 *
 * A check measures each trace (core/gate/check.h: gtr_check_measure) and
 * then judges the measurements against the baseline (gtr_check_judge).
 * Sharded, each of N shards measures its share of the inputs and writes
 * the measurements to a part file (schema gtr.check.part.v1); the merge
 * reads the N parts back into the results an unsharded run would have
 * measured, and the caller judges and reports them with the same code.
 *
 * The share is stable: a case belongs to shard XXH3-64(case name) mod N,
 * its name being what the baseline matches it by, so the same case (all
 * its runs) lands on the same shard whatever the machine and the listing
 * order. Each part
 * also records how many inputs the whole listing had and a digest of
 * their names, so that parts cut from different listings, a missing
 * part, or a part given twice are refused, by name, instead of giving a
 * verdict over a silently smaller set of traces.
 *
 * Everything here is plain data: no threads, no printing, no environment
 * (the caller reads the variables and passes their values).
 */
#ifndef GTR_CORE_SHARD_H
#define GTR_CORE_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "core/gate/check.h"

/* The most shards a check can be split into. */
#define GTR_SHARD_MAX 100000u

typedef struct gtr_shard {
	unsigned index; /* 0 .. count-1 */
	unsigned count;
} gtr_shard;

/* The shard of `count` that the case `name` belongs to: XXH3-64 (seed 0) of its bytes, mod count. */
unsigned gtr_shard_of(const char *name, unsigned count);

/* "K/N", 0 <= K < N <= GTR_SHARD_MAX. 0, or -1 with a reason in why. */
int gtr_shard_parse(const char *spec, gtr_shard *s, char *why, size_t cap);

/* The values of the variables batch systems give an array task (NULL: not set). */
typedef struct gtr_shard_env {
	const char *slurm_id;    /* SLURM_ARRAY_TASK_ID */
	const char *slurm_min;   /* SLURM_ARRAY_TASK_MIN */
	const char *slurm_step;  /* SLURM_ARRAY_TASK_STEP */
	const char *slurm_count; /* SLURM_ARRAY_TASK_COUNT */
	const char *job_index;   /* JOB_COMPLETION_INDEX (Kubernetes Indexed Job) */
} gtr_shard_env;

/*
 * The shard of this task. Slurm first: K = (ID - MIN) / STEP (MIN 0 and
 * STEP 1 when not set), N = COUNT; then JOB_COMPLETION_INDEX: K = the
 * index, N = count (required there: Kubernetes does not say it). A count
 * given with Slurm's must agree with it. 0, or -1 with a reason in why.
 */
int gtr_shard_from_env(const gtr_shard_env *env, unsigned count, gtr_shard *s, char *why,
		       size_t cap);

/*
 * What a shard was cut from: the number of inputs and a digest of their
 * names in order, h = XXH3-64 of each name with its NUL, seeded with the
 * h of the names before it (0 for the first).
 */
typedef struct gtr_shard_list {
	size_t n;
	uint64_t digest;
} gtr_shard_list;

void gtr_shard_list_of(const gtr_check_input *in, size_t n, gtr_shard_list *l);

/*
 * Keeps the inputs of shard s, in their order, at the front of in[] and
 * frees the others; *n becomes their count (possibly 0). The share goes
 * by each input's case name, so that the runs of a case are measured on
 * one shard.
 */
void gtr_shard_select(gtr_check_input *in, size_t *n, gtr_shard s);

/* What a part says of the run that made it. */
typedef struct gtr_part_info {
	gtr_shard shard;
	gtr_shard_list all; /* the whole listing, before the share was taken */
	size_t ntop;        /* top slices kept per trace */
	int lenient;        /* traces read with GTR_OPEN_LENIENT */
	unsigned jobs;      /* threads asked for, before limiting them to the share */
	double seconds;     /* wall time of the shard */
} gtr_part_info;

/*
 * Writes the part file of a shard: info, then one object per measured
 * result (gtr_check_measure's, in name order): name, path, seconds,
 * error, warning, and the fields of a baseline entry
 * (gtr_baseline_write_fields). Schema gtr.check.part.v1.
 */
void gtr_part_write(const gtr_check_result *r, size_t n, const gtr_part_info *info, gtr_out *o);

/* A part file read back. Opaque; free with gtr_part_free. */
typedef struct gtr_part gtr_part;

/*
 * Reads a part file from a JSON span. 0, or GTR_E_CORRUPT (with the byte
 * offset of a JSON error, or the JSON path of a wrong field) /
 * GTR_E_NOMEM with *err filled.
 */
int gtr_part_read(const char *text, size_t len, gtr_part **out, gtr_error *err);
void gtr_part_free(gtr_part *p);
const gtr_part_info *gtr_part_get_info(const gtr_part *p);

/* Every shard's measurements in one list, as one unsharded run measures them. */
typedef struct gtr_merged {
	gtr_check_input *in;   /* sorted by name */
	gtr_check_result *res; /* res[i].in == &in[i]; measured, not yet judged */
	size_t n;
	gtr_part_info info;    /* shard {0, count}; jobs the most any shard asked for,
				  at most n; seconds the sum of the shards' */
} gtr_merged;

/*
 * Merges n parts, names[i] being what part i is called in messages. Its
 * measurements move out of each part (free the parts afterwards).
 * Refused with GTR_E_CORRUPT and a message naming the parts: parts of
 * different splits (counts), of different listings or options, a shard
 * given twice, a shard missing, a trace in two parts. Free with
 * gtr_merged_free.
 */
int gtr_part_merge(gtr_part *const *parts, const char *const *names, size_t n, gtr_merged *out,
		   gtr_error *err);
void gtr_merged_free(gtr_merged *m);

#endif
