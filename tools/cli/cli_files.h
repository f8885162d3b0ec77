/* Internal header: not installed. The input and output files of the
 * scope-likwid subcommands, handled alike: a result file read with its
 * messages on stderr, an output file replaced atomically. */
#ifndef SL_CLI_FILES_H
#define SL_CLI_FILES_H

#include <stdio.h>
#include "h5read.h"

/* What a path holds, as far as a result file goes. */
typedef enum sl_file_kind {
    SL_FILE_MISSING,        /* cannot be opened (errno says why) */
    SL_FILE_DIRECTORY,
    SL_FILE_NOT_HDF5,
    SL_FILE_OTHER_HDF5,     /* HDF5, neither ours nor scope-profiler's */
    SL_FILE_RESULT,         /* HDF5 that says it is ours (its content may be damaged) */
    SL_FILE_SP,             /* a file of scope-profiler's layout (docs/SCOPE-PROFILER.md) */
} sl_file_kind;

sl_file_kind sl_file_probe(const char *path);

/* Prints "scope-likwid: CMD: PATH: ..." for a directory, a file that is not
 * HDF5 or an HDF5 file that is not ours; returns 1 when it did (kind is one
 * of those), 0 otherwise. */
int sl_file_refuse(const char *cmd, const char *path, sl_file_kind kind);

/* Reads a result file. On failure prints one line "scope-likwid: CMD:
 * PATH: what is wrong" per problem the reader found on stderr (a directory,
 * or an HDF5 file that is not ours, is called that). sl_h5_read's return
 * code. */
int sl_read_result(const char *cmd, const char *path, sl_runset *set);

/* s ends in suffix (case ignored) after at least one other character. */
int sl_ends_with(const char *s, const char *suffix);

/* Writes the output; 0 or negative errno. */
typedef int (*sl_out_fill)(FILE *f, void *ctx);

/* Writes path through a temporary file ".BASE.tmpXXXXXX" in its directory,
 * renamed over path when complete: never a half file, and a failure leaves
 * path as it was (the temporary file is removed). Mode 0666 less the umask,
 * like a shell redirect. sync: fsync before the rename. 0 or negative
 * errno. */
int sl_out_file_write(const char *path, int sync, sl_out_fill fill, void *ctx);

#endif
