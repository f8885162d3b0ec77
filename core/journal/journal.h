/* Internal header: not installed. The crash-safe journal (docs/SHIM.md,
 * "The journal"): a file the shim maps MAP_SHARED at Init and keeps its
 * per-thread region tables and per-call samples in, so that the kernel keeps
 * them when the process is killed. The hot path writes into it as into any
 * memory (no system call, no lock); `scope-likwid recover` reads it back.
 *
 * Layout: a header (SL_JRN_HEADER_BYTES), then records allocated one after
 * the other, each an sl_jrn_rec followed by its object. A record's `bytes`
 * is set when it is allocated and its `kind` when its object is complete;
 * a reader stops at bytes == 0 and skips kind == 0 (also the unused tail of
 * a piece).
 *
 * The writing process maps the file in pieces as it grows (never the whole
 * file: mlockall would populate it), the file's size following them (it
 * ends with the last piece, or later when the process was killed while
 * adding one: readers take what `used` says): the first `first_piece` bytes at
 * `base`, and each later piece, at a page-aligned offset, begins with a
 * PIECE record saying at which address it is mapped. Pointers inside
 * objects are addresses in the writing process: the piece that holds an
 * address gives its offset in the file.
 *
 * A thread's samples are in chunks (ARENA records), linked from the
 * thread's `arena`; each chunk's samples run up to the thread's `snext`
 * when that lies in the chunk, else up to the chunk's `fill`. */
#ifndef SL_JOURNAL_H
#define SL_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "provenance.h"
#include "run.h"

#define SL_JRN_MAGIC "scope-likwid journal 2\n"    /* 23 bytes and a NUL */
#define SL_JRN_HEADER_BYTES 16384
#define SL_JRN_ALIGN 64

enum sl_jrn_state {
    SL_JRN_RUNNING = 1,         /* between Init and Close */
    SL_JRN_SIGNALED = 2,        /* a terminating signal arrived (signo) */
    SL_JRN_CLOSED = 3,          /* Close or the exit hook delivered the result */
    SL_JRN_RECOVERED = 4,       /* recover wrote the result (journal about to go) */
    SL_JRN_UNSAVED = 5,         /* Close or the exit hook ran but could save nothing */
    SL_JRN_DELIVERING = 6,      /* the rescue file (header.rescue) exists, the writer runs */
};

enum sl_jrn_kind {
    SL_JRN_THREAD = 1,          /* a thread's table: sl_jrn_thread */
    SL_JRN_ENTRY = 2,           /* a region in a thread: sl_jrn_entry, then the tag */
    SL_JRN_ARENA = 3,           /* a chunk of a thread's samples: sl_jrn_chunk, then samples */
    SL_JRN_TABLE = 4,           /* a thread's lookup table (not read back) */
    SL_JRN_PIECE = 5,           /* the start of a piece: sl_jrn_piece */
    SL_JRN_META = 6,            /* the run's metadata at Init: sl_jrn_meta, then its strings */
};

typedef struct sl_jrn_header {
    char magic[24];
    uint32_t header_bytes;      /* SL_JRN_HEADER_BYTES */
    uint32_t align;             /* SL_JRN_ALIGN */
    uint64_t size;              /* bytes the file may grow to (it grows piece by piece) */
    uint64_t base;              /* address of byte 0 in the writing process */
    uint64_t used;              /* bytes allocated (header included) */
    int64_t pid;
    uint64_t start_ticks;       /* /proc/PID/stat field 22: tells a reused pid */
    char boot_id[48];           /* /proc/sys/kernel/random/boot_id */
    int64_t rank;
    int64_t mpi;                /* 1: rank is an MPI rank */
    int64_t origin_unix_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at Init */
    int64_t tsc;                /* 1: samples and durations are TSC ticks */
    int64_t tick0, ns0;         /* (TSC, CLOCK_MONOTONIC) at Init */
    int64_t tick1, ns1;         /* the latest such pair (updated on cold paths) */
    int32_t state;              /* sl_jrn_state */
    int32_t signo;              /* SL_JRN_SIGNALED: which */
    int64_t cycle;              /* the Init..Close cycle (a later one's journal: its own) */
    char output[4096];          /* the result file the process would have written */
    char hostname[256];
    char executable[4096];
    char command_line[4096];
    uint64_t first_piece;       /* bytes mapped at base (0: the whole file) */
    int64_t outside_tables;     /* threads whose tables are not in the journal (it was full) */
    int64_t outside_entries;    /* regions of threads in it whose entries are not (full) */
    char rescue[3072];          /* SL_JRN_DELIVERING: the rescue file the writer works on */
    int64_t parent_pid;         /* a forked child's parent (0: none; an older journal's 0) */
    /* Where the process ran and which launch it belongs to, as the result
     * file says (docs/FORMAT.md); all zero in an older journal (unknown). */
    sl_provenance prov;
    char run_id[168];           /* "" when unknown or too long to keep whole */
    /* A batch of Init..Close cycles (docs/SHIM.md) journaled from cycle
     * batch_first to cycle: its batch file (output + ".batch.rescue")
     * holds a part of these calls, so the journal's result replaces it.
     * 0: none (or an older journal). */
    int64_t batch_first;
    /* CLOCK_MONOTONIC when the first terminating signal arrived (0: none
     * yet): the writer's deadline counts from it. */
    int64_t signal_ns;
    /* The process's pid namespace (the inode of /proc/self/ns/pid; 0:
     * unknown): its pid names it only there. */
    uint64_t pid_ns;
} sl_jrn_header;
_Static_assert(sizeof(sl_jrn_header) <= SL_JRN_HEADER_BYTES, "the journal header outgrew its room");

/* The run's /metadata as known at Init (docs/FORMAT.md), the journal's
 * first record: `bytes` of NUL-terminated "NAME=VALUE" strings follow:
 * user (only when the name was looked up at Init), uid, working_directory,
 * mpi_size, omp_num_threads, then the SLURM_* variables, as many as fit in SL_JRN_META_MAX (what a reader takes at
 * most, whatever the record says). */
#define SL_JRN_META_MAX 32768
typedef struct sl_jrn_meta {
    uint32_t bytes;             /* of the strings */
    uint32_t left_out;          /* SLURM_* variables that did not fit */
} sl_jrn_meta;

/* A piece of the file mapped on its own: this record's offset in the file
 * is the piece's first byte, mapped at addr. */
typedef struct sl_jrn_piece {
    uint64_t addr;
    uint64_t bytes;
} sl_jrn_piece;

/* A chunk of samples (the object of an ARENA record); the samples follow. */
typedef struct sl_jrn_chunk {
    uint64_t next;              /* the thread's next chunk (0: none yet) */
    uint64_t fill;              /* end of the samples once the thread moved on */
    uint64_t end;               /* end of the room */
    uint64_t bytes;             /* the chunk's bytes (header included) */
} sl_jrn_chunk;

typedef struct sl_jrn_rec {
    uint32_t kind;              /* sl_jrn_kind; 0 while the object is filled */
    uint32_t reserved;
    uint64_t bytes;             /* the whole record, this header included */
    uint64_t owner;             /* ENTRY, ARENA: address of the thread's object */
    uint64_t reserved2;
} sl_jrn_rec;

/* The leading fields of the shim's region entry (shim/hot_path.h asserts
 * that they sit at these offsets). */
typedef struct sl_jrn_entry {
    uint64_t tag;               /* address of the tag's bytes */
    uint64_t len;
    uint64_t hash;
    int64_t cap;                /* samples kept at most */
    uint64_t next;
    int64_t open_start;         /* -1: not open */
    int64_t dropped_total, dropped_min, dropped_max;
    int64_t nested, unmatched;
    int64_t left;               /* cap - completed calls */
} sl_jrn_entry;

/* The leading fields of the shim's per-thread table. */
typedef struct sl_jrn_thread {
    uint64_t next;
    int64_t tid;
    uint64_t tbl, count, first, last;
    int32_t tsc, store_full;
    uint64_t arena;             /* address of the first chunk (0: none yet) */
    uint64_t snext;             /* address of the next free sample */
    uint64_t cur;               /* address of the chunk snext is in */
    int64_t outside;            /* samples in full chunks outside the journal */
} sl_jrn_thread;

typedef struct sl_jrn_sample {
    uint64_t e;                 /* address of the sl_jrn_entry */
    int64_t start, end;
} sl_jrn_sample;

/* What recover needs to know besides the run. */
typedef struct sl_jrn_info {
    int64_t pid;
    uint64_t start_ticks;
    char boot_id[48];
    int state, signo;
    char output[4096];
    char rescue[3072];          /* SL_JRN_DELIVERING: the rescue file */
    size_t open_regions;        /* started, not stopped, in some thread */
    char open_tags[512];        /* the first of them, "tag (thread T), ..." */
    size_t outside_threads;     /* threads whose samples were not all in the journal */
    int64_t outside_calls;      /* calls whose samples were not in the journal */
    int64_t outside_tables;     /* threads not in the journal at all */
    int64_t outside_entries;    /* regions of threads in it not in it */
    int64_t cycle;              /* the Init..Close cycle it journals (1: the first) */
    int64_t batch_first;        /* a batch's first cycle (header), else 0 */
    /* Where it ran, and in which batch job (the first record; "" unknown):
     * for "does its process still run" (sl_jrn_locate). */
    char hostname[256];
    uint64_t pid_ns;
    char job[64];               /* SLURM_JOB_ID */
    char step[32];              /* SLURM_STEP_ID ("" outside a step: the batch script) */
    char cluster[64];           /* SLURM_CLUSTER_NAME */
    int64_t signal_ns;          /* when the first terminating signal arrived, 0: none */
} sl_jrn_info;

/* A (TSC, CLOCK_MONOTONIC) pair taken by the reader, for the conversion of
 * ticks: used when the journal is from this boot; 0/0: none. */
typedef struct sl_jrn_clock {
    int64_t tick, ns;
    const char *boot_id;        /* the reader's boot, NULL: unknown */
} sl_jrn_clock;

/* Reads the header only (for liveness checks). 0, or -errno / -EINVAL with
 * a diagnostic naming the file. */
int sl_journal_read_info(const char *path, sl_jrn_info *info, sl_diag *d);

/* Reads the journal at path into run (initialised by the caller): the
 * process's attributes and the timing of every region, as Close would have
 * collected it. 0, or a negative errno with a diagnostic. */
int sl_journal_read(const char *path, const sl_jrn_clock *clk, sl_run *run, sl_jrn_info *info,
                    sl_diag *d);

/* The same for a journal image in memory (size bytes, 8-byte aligned;
 * name for the messages): the fuzzer's entry. */
int sl_journal_read_mem(const void *p, size_t size, const char *name, const sl_jrn_clock *clk,
                        sl_run *run, sl_jrn_info *info, sl_diag *d);

/* /proc/PID/stat's state letter ('T' stopped, 'Z' zombie, ...), 0 when it
 * cannot be read. No allocation: the shim asks it too. */
char sl_proc_state(int64_t pid);

/* /proc/PID/stat's start time (clock ticks after boot), 0 when unknown. */
uint64_t sl_jrn_start_ticks(int64_t pid);

/* Where the journal's process ran, seen from here: SL_JRN_HERE (this
 * boot, this host name and pid namespace: its pid can be looked up), or
 * another host, another boot of this host, another pid namespace (a
 * container): there its pid says nothing here, and the process may still
 * run. why (cap bytes) says which, for the messages. */
typedef enum sl_jrn_where {
    SL_JRN_HERE = 0,
    SL_JRN_OTHER_HOST,
    SL_JRN_OTHER_BOOT,
    SL_JRN_OTHER_PIDNS,
} sl_jrn_where;
sl_jrn_where sl_jrn_locate(const sl_jrn_info *info, char *why, size_t cap);

/* Whether the process that wrote the journal still runs, as far as this
 * machine can tell: here (sl_jrn_locate), the pid exists and started at
 * the recorded time. Elsewhere: 1 (it may). */
int sl_jrn_writer_alive(const sl_jrn_info *info);

/* The inode of this process's pid namespace, 0 when unknown. */
uint64_t sl_jrn_pid_ns(void);

/* This boot's id into buf (cap >= 48); "" when unknown. */
void sl_jrn_boot_id(char *buf, size_t cap);

#endif
