/* The marker_file source: LIKWID's marker file, read by core/'s reader
 * once it is known to be this run's. */
#include "end.h"
#include "markerfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* marker_file: LIKWID's marker file read by the shim's own reader (core/),
 * when the collector could not answer; and the check, before either reads
 * it, that the file is this run's. */
/* LIKWID_FILEPATH as it was at this cycle's Init. Two runs in the same
 * second that share the path, the second one's LIKWID writing nothing:
 * the file is the first run's. The file as it was at Init tells exactly:
 * unchanged at Close (same device, inode, size, and nanosecond mtime and
 * ctime) means LIKWID did not write it. Only for a path that was not the
 * one at Init does the file's own time decide: older than Init (in
 * nanoseconds; in seconds where the file system keeps whole seconds). */
static struct {
    char *path;             /* NULL: LIKWID_FILEPATH not set at Init */
    int existed;            /* and st holds it */
    struct stat st;
    struct timespec init;   /* CLOCK_REALTIME_COARSE: what file times are taken from */
} at_init;

void sl_markerfile_note_init(void)
{
    clock_gettime(CLOCK_REALTIME_COARSE, &at_init.init);
    free(at_init.path);
    const char *p = sl_env(SL_ENV_LIKWID_FILEPATH);
    at_init.path = p ? strdup(p) : NULL;
    at_init.existed = at_init.path && stat(at_init.path, &at_init.st) == 0;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static int older_than_init(const struct timespec *m)
{
    if (m->tv_nsec == 0)    /* whole seconds: the file may be of Init's second */
        return m->tv_sec < at_init.init.tv_sec;
    return m->tv_sec < at_init.init.tv_sec ||
           (m->tv_sec == at_init.init.tv_sec && m->tv_nsec < at_init.init.tv_nsec);
}

int sl_source_markerfile_ok(const char *path, sl_why *status)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        sl_status_add(status, "LIKWID wrote no marker file (%s: %s)", path, strerror(errno));
        return 0;
    }
    /* A FIFO or device could block or never end: never opened. */
    if (!S_ISREG(st.st_mode)) {
        sl_status_add(status, "LIKWID_FILEPATH %s is not a regular file", path);
        return 0;
    }
    if (at_init.path && strcmp(at_init.path, path) == 0) {
        if (at_init.existed && same_file(&at_init.st, &st)) {
            sl_status_add(status, "marker file %s is unchanged since this run's Init: LIKWID did "
                                "not write it", path);
            return 0;
        }
        return 1;   /* made or rewritten since Init */
    }
    if (older_than_init(&st.st_mtim)) {
        sl_status_add(status, "marker file %s is older than this run: LIKWID did not write it",
                    path);
        return 0;
    }
    return 1;
}

/* Moves the regions without a single value line (a file cut off or damaged
 * after its region list) out of lw and frees them; returns how many. LIKWID
 * leaves regions without calls out of its file, so such a region says
 * nothing, and if every region is like that the closing thread's marker_api
 * snapshots are worth more than an empty marker_file result. */
static size_t drop_empty_regions(sl_likwid *lw)
{
    size_t empty = 0;
    for (size_t i = 0; i < lw->nregions; i++)
        empty += lw->regions[i].nthreads == 0;
    if (!empty)
        return 0;
    sl_likwid gone;
    sl_likwid_init(&gone);
    gone.regions = calloc(empty, sizeof *gone.regions);
    if (!gone.regions)
        return 0;   /* keep them: harmless, only useless */
    size_t k = 0;
    for (size_t i = 0; i < lw->nregions; i++) {
        if (lw->regions[i].nthreads == 0)
            gone.regions[gone.nregions++] = lw->regions[i];
        else
            lw->regions[k++] = lw->regions[i];
    }
    gone.cap = gone.nregions;
    lw->nregions = k;
    sl_likwid_free(&gone);
    return empty;
}

static int fail(sl_likwid *lw, sl_diag *d)
{
    sl_likwid_free(lw);
    sl_likwid_init(lw);
    sl_diag_free(d);
    return 0;
}

int sl_source_markerfile(const char *path, sl_likwid *lw, sl_why *status)
{
    sl_diag d;
    sl_diag_init(&d);
    sl_markerfile_info info = {0};
    int rc = sl_markerfile_read(path, 0, lw, &info, &d);
    if (rc != 0) {
        sl_status_add(status, "marker_file failed: %s", d.kept ? d.lines[0] : strerror(-rc));
        return fail(lw, &d);
    }
    size_t empty = drop_empty_regions(lw);
    if (lw->nregions == 0) {
        int defect = info.skipped_lines && d.kept;
        sl_status_add(status, "marker_file failed: no region has a value line%s%s%s",
                    defect ? " (first defect: " : "", defect ? d.lines[0] : "",
                    defect ? ")" : "");
        return fail(lw, &d);
    }
    if (empty)
        sl_status_add(status, "marker_file: %zu regions without any value line left out", empty);
    if (info.lost_lines)
        sl_status_add(status, "marker_file: %zu value lines hold only -22 (LIKWID 5.5's -EINVAL: "
                            "values it lost): those threads have no counters", info.lost_lines);
    lw->source = SL_SOURCE_MARKER_FILE;
    if (info.skipped_lines)
        sl_status_add(status, "used marker_file (%zu defective lines skipped; first: %s)",
                    info.skipped_lines, d.kept ? d.lines[0] : "?");
    else
        sl_status_add(status, "used marker_file");
    sl_diag_free(&d);
    return 1;
}
