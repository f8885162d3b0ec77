/* Internal header: not installed. The wire format: a line-based text
 * encoding of an sl_run (or of its likwid part alone). It is what the shim
 * writes as a rescue file and hands to the writer helper, and what the
 * collector prints on stdout. Locale-independent and exact (doubles as the
 * hex of their IEEE bits). Decoding treats the input as hostile: it never
 * crashes, never allocates more than the input can justify, and reports the
 * first defect as "name:line: what: expected what". Layout in docs/WIRE.md. */
#ifndef SL_WIRE_H
#define SL_WIRE_H

#include <stddef.h>
#include <stdio.h>
#include "diag.h"
#include "run.h"

/* The version written; the decoder also reads version 3 (no provenance,
 * likwid_version or run_id lines), version 2 (no parent_pid line either)
 * and version 1 (no metadata lines either). */
#define SL_WIRE_MAGIC "scope-likwid-wire 5"
#define SL_WIRE_MAGIC_V4 "scope-likwid-wire 4"
#define SL_WIRE_MAGIC_V3 "scope-likwid-wire 3"
#define SL_WIRE_MAGIC_V2 "scope-likwid-wire 2"
#define SL_WIRE_MAGIC_V1 "scope-likwid-wire 1"

/* Encodes the whole run to fd. 0 or negative errno (write failures, ENOSPC). */
int sl_wire_write_run(int fd, const sl_run *run);
/* Encodes only the likwid part (the collector's answer). */
int sl_wire_write_likwid(int fd, const sl_likwid *lw);

/* Decodes a buffer produced by sl_wire_write_run into run (initialised by the
 * caller with sl_run_init). 0 or -EINVAL/-ENOMEM; the defect goes to diag. */
int sl_wire_read_run(const char *buf, size_t len, const char *name,
                     sl_run *run, sl_diag *diag);
/* Decodes a collector answer into lw (initialised by the caller). */
int sl_wire_read_likwid(const char *buf, size_t len, const char *name,
                        sl_likwid *lw, sl_diag *diag);

/* True when buf starts with one of the magic lines (to tell a rescue file from a
 * marker file). */
int sl_wire_is_wire(const char *buf, size_t len);

#endif
