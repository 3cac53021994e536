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

/* A trace to check: the name it is matched by, and where it is. */
typedef struct gtr_check_input {
	char *name;
	char *path;
	char *error; /* NULL, or why the walk could not take it: reported as its error */
} gtr_check_input;

/* Lines about what the walk skipped ("DIR/p: a FIFO, not a regular file: skipped"). */
typedef struct gtr_check_notes {
	char **line;
	size_t n;
} gtr_check_notes;

/*
 * Expands the arguments into inputs sorted by name: a directory gives
 * every regular file below it whose name matches `pattern` (fnmatch;
 * hidden entries skipped), named by its path relative to the directory;
 * a file is taken whatever its name, named by its base name. Returns 0,
 * or -1 with a reason in why (two inputs with one name, a directory in
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

#endif
