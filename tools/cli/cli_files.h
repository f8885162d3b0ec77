/* Internal header: not installed. The input and output files of the
 * scope-likwid subcommands, handled alike: a result file read with its
 * messages on stderr, an output file replaced atomically. */
#ifndef SL_CLI_FILES_H
#define SL_CLI_FILES_H

#include <stdio.h>
#include "h5read.h"

/* Reads a result file. On failure prints the reader's lines (or one line
 * "PATH: cannot read: ...") on stderr. sl_h5_read's return code. */
int sl_read_result(const char *path, sl_runset *set);

/* Writes the output; 0 or negative errno. */
typedef int (*sl_out_fill)(FILE *f, void *ctx);

/* Writes path through a temporary file ".BASE.tmpXXXXXX" in its directory,
 * renamed over path when complete: never a half file, and a failure leaves
 * path as it was (the temporary file is removed). Mode 0666 less the umask,
 * like a shell redirect. sync: fsync before the rename. 0 or negative
 * errno. */
int sl_out_file_write(const char *path, int sync, sl_out_fill fill, void *ctx);

#endif
