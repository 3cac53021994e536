/*
 * core/gate/inputs.h: the traces a `check` is given, found below
 * directories.
 *
 * The walk takes regular files only; a FIFO, device or socket found in a
 * directory is noted and skipped (one named on the command line is read
 * like any file: that is what was asked for). Each directory is entered
 * once, known by device and inode, so symbolic links that loop (`a ->
 * .`) add nothing; there is no depth limit. What cannot be read below a
 * directory (a subdirectory without permission, a dangling or looping
 * link that matches the pattern, a path too long) becomes an input with
 * its error set: an error of that entry, while the rest is checked.
 */
#ifndef GTR_CORE_GATE_INPUTS_H
#define GTR_CORE_GATE_INPUTS_H

#include <stddef.h>

/*
 * A trace to check: the name it is matched by, and where it is. A case
 * is what a baseline keeps figures of; it has one run or several. A
 * trace whose file name is a number before its extension (`json/3.trace`)
 * is run 3 of the case named by its directory (`json`); any other trace
 * is a case of one run, named as the trace.
 */
typedef struct gtr_check_input {
	char *name;
	char *path;
	char *error;     /* NULL, or why the walk could not take it: reported as its error */
	char *case_name; /* owned; set by gtr_check_collect or gtr_check_input_case */
	long run;        /* the run's number, -1 for a case of one trace */
} gtr_check_input;

/* Lines about what the walk skipped ("DIR/p: a FIFO, not a regular file: skipped"). */
typedef struct gtr_check_notes {
	char **line;
	size_t n;
} gtr_check_notes;

/*
 * Expands the arguments into inputs sorted by case, then run: a directory
 * gives every regular file below it whose name matches `pattern`
 * (fnmatch; hidden entries skipped), named by its path relative to the
 * directory; a file is taken whatever its name, named by its base name
 * (a run file by its directory's base name too: `x/json/3.trace` is
 * `json/3.trace`). Returns 0, or -1 with a reason in why (two inputs
 * with one name, a case given both as runs and whole, a directory in
 * which nothing matches, out of memory). notes may be NULL. Free with
 * gtr_check_inputs_free and gtr_check_notes_free.
 */
int gtr_check_collect_notes(char *const *args, size_t nargs, const char *pattern,
			    gtr_check_input **out, size_t *n, gtr_check_notes *notes, char *why,
			    size_t cap);
int gtr_check_collect(char *const *args, size_t nargs, const char *pattern,
		      gtr_check_input **out, size_t *n, char *why, size_t cap);
void gtr_check_inputs_free(gtr_check_input *in, size_t n);
void gtr_check_notes_free(gtr_check_notes *notes);
/* Sets in->case_name and in->run from in->name. 0, or -1 out of memory. */
int gtr_check_input_case(gtr_check_input *in);
/* The order of inputs (and so of results): case name, then run, then name. */
int gtr_check_input_cmp(const gtr_check_input *a, const gtr_check_input *b);

#endif
