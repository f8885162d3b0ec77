/* Internal to the marker-file reader (core/markerfile*.c): not part of
 * core's interface, which is markerfile.h. The state the reader's three
 * files share: the assembly (markerfile.c) reads the file and builds the
 * result, the line parser (markerfile_lines.c) reads one line into the
 * region table, and the row store (markerfile_rows.c) holds each region's
 * rows while its lines come. */
#ifndef SL_MARKERFILE_I_H
#define SL_MARKERFILE_I_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "markerfile.h"
#include "markerfile_numbers.h"

/* The forms the messages name when a line is not what was expected. */
#define MF_HEADER_FORM "'<nthreads> <nregions> <ngroups>'"
#define MF_REGION_FORM "'<id>:<tag>-<group>'"
#define MF_VALUE_FORM "'<region> <group> <cpu> <count> <time> <nevents> <v1> ... <vN>'"

/* One value line kept; its nevents values are in the region's vals. */
typedef struct mf_row {
    int64_t cpu, count;
    double time;
    size_t line;
} mf_row;

typedef struct mf_region {
    const char *tag;     /* points into the input */
    size_t tag_len;
    int64_t group;
    size_t line;         /* of the region line */
    int bad;             /* defective region line: its value lines are skipped */
    int bad_reported;
    int has_nevents;
    size_t nevents;
    size_t nevents_line; /* first line that set nevents */
    /* its rows, in value-line order; vals is row-major (nrows x nevents) */
    mf_row *rows;
    size_t nrows, caprows;
    double *vals;
    size_t capvals;
} mf_region;

typedef struct mf_ctx {
    const char *name;
    int strict;
    sl_diag *diag;
    sl_markerfile_info *info;
    uint64_t hdr_regions, hdr_groups;
    int regions_closed;  /* a value line was seen: no more region lines */
    mf_region *reg;
    size_t nreg, capreg;
    double *vals;        /* the values of the line being read */
    size_t capvals;
    scratch sc;
} mf_ctx;

/* markerfile_rows.c: one diagnostic "name:line: ..." (nothing without a diag). */
void sl_mf_report(mf_ctx *c, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A defective line: -EINVAL in strict mode, else 1 (the caller skips it). */
#define SKIP(c, line, ...) (sl_mf_report((c), (line), __VA_ARGS__), (c)->strict ? -EINVAL : 1)

/* markerfile_lines.c: line 1, and every later line (cut: no newline at its
 * end). 0, 1 (line skipped) or a negative errno. */
int sl_mf_parse_header(mf_ctx *c, const char *l, size_t n, int cut);
int sl_mf_parse_line(mf_ctx *c, const char *l, size_t n, size_t line, int cut);

/* markerfile_rows.c */
/* A region table slot, defective until its line proves good; NULL: no memory. */
mf_region *sl_mf_add_slot(mf_ctx *c, size_t line);
/* Appends a row (cpu, count, time, line, the nevents values in vals) to r,
 * whose nevents is set. 0 or -ENOMEM. */
int sl_mf_add_row(mf_region *r, int64_t cpu, int64_t count, double time, size_t line,
                  const double *vals);
/* Frees r's rows (the region's tag stays: it points into the input). */
void sl_mf_free_rows(mf_region *r);

#endif
