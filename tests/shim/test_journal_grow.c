/* The journal file as long as what it holds (shim/journal/file.c): in ls -l
 * and on disk at most one piece more than what it holds, as it grows, in a
 * later cycle's journal, and when the process is killed while it grows; the
 * reader takes it as it is, cut to what it holds, or longer. The shim runs
 * in this process (not linked with LIKWID), each test in its own. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "journal.h"
#include "run.h"
#include "shim_test_util.h"

void likwid_markerInit(void);
int likwid_markerStartRegion(const char *);
int likwid_markerStopRegion(const char *);
void likwid_markerClose(void);

static char *dir, output[600];

static void setup(void)
{
    dir = tu_tempdir();
    cr_assert_not_null(dir);
    char tmpl[600];
    snprintf(tmpl, sizeof tmpl, "%s/out-%%p.h5", dir);
    char *w = tu_script(dir, "writer.sh", TU_COPY_WRITER);
    setenv("SCOPE_LIKWID_WRITER", w, 1);
    free(w);
    setenv("SCOPE_LIKWID_OUTPUT", tmpl, 1);
    setenv("SCOPE_LIKWID_TIMEOUT", "5", 1);
    setenv("SCOPE_LIKWID_QUIET", "1", 1);
    setenv("SCOPE_LIKWID_MAX_CALLS", "1000000", 1);    /* every call's sample kept */
    unsetenv("LIKWID_FILEPATH");
    snprintf(output, sizeof output, "%s/out-%d.h5", dir, (int)getpid());
}

static sl_run read_journal(const char *path)
{
    sl_run run;
    sl_jrn_info info;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_run_init(&run), 0);
    sl_jrn_clock clk = {0};
    cr_assert_eq(sl_journal_read(path, &clk, &run, &info, &d), 0, "%s: %s", path,
                 d.kept ? d.lines[0] : "?");
    sl_diag_free(&d);
    return run;
}

static uint64_t used_of(const char *jpath)
{
    int fd = open(jpath, O_RDONLY);
    cr_assert_geq(fd, 0, "no journal %s", jpath);
    uint64_t used = 0;
    cr_assert_eq(pread(fd, &used, sizeof used, offsetof(sl_jrn_header, used)),
                 (ssize_t)sizeof used);
    close(fd);
    return used;
}

/* The journal file as large as what it holds, in ls -l and on disk: its
 * size is at least the bytes used (a reader needs them) and at most one
 * piece more (a piece: 1 MiB, or an eighth of what is used). */
static void size_follows_use(const char *jpath)
{
    uint64_t used = used_of(jpath);
    struct stat st;
    cr_assert_eq(stat(jpath, &st), 0);
    uint64_t piece = used / 8 > ((uint64_t)1 << 20) ? used / 8 : (uint64_t)1 << 20;
    uint64_t size = (uint64_t)st.st_size, disk = (uint64_t)st.st_blocks * 512;
    cr_assert_geq(size, used, "the file (%llu bytes) shorter than what it holds (%llu)",
                  (unsigned long long)size, (unsigned long long)used);
    cr_assert_leq(size, used + piece + 4096, "ls -l: %llu bytes for %llu used",
                  (unsigned long long)size, (unsigned long long)used);
    cr_assert_leq(disk, used + piece + 65536, "on disk: %llu bytes for %llu used",
                  (unsigned long long)disk, (unsigned long long)used);
}

static int64_t calls_of(const sl_run *run, const char *tag)
{
    int64_t n = 0;
    for (size_t i = 0; i < run->timing.nregions; i++)
        if (strcmp(run->timing.regions[i].tag, tag) == 0)
            for (size_t t = 0; t < run->timing.regions[i].nthreads; t++)
                n += run->timing.regions[i].call_counts[t];
    return n;
}

/* A copy of the journal cut (or grown with zeros) to bytes. */
static void copy_sized(const char *from, const char *to, off_t bytes)
{
    size_t len;
    char *buf = tu_slurp(from, &len);
    cr_assert_not_null(buf);
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    size_t n = (size_t)bytes < len ? (size_t)bytes : len;
    cr_assert_eq(write(fd, buf, n), (ssize_t)n);
    cr_assert_eq(ftruncate(fd, bytes), 0);
    close(fd);
    free(buf);
}

/* Grown through many pieces: the size follows, step by step, and the
 * journal reads back whole as it is, cut to what it holds, and with a
 * piece's worth of zeros after it (a process killed while adding one). */
Test(journal_grow, size_follows_use, .init = setup)
{
    likwid_markerInit();
    char jpath[700];
    snprintf(jpath, sizeof jpath, "%s.journal", output);
    size_follows_use(jpath);
    for (int k = 0; k < 20; k++) {
        for (int i = 0; i < 10000; i++) {
            likwid_markerStartRegion("a");
            likwid_markerStopRegion("a");
        }
        size_follows_use(jpath);
    }
    uint64_t used = used_of(jpath);
    cr_assert_gt(used, (uint64_t)4 << 20, "200000 calls in %llu bytes: too few pieces to tell",
                 (unsigned long long)used);
    char cut[700], longer[700];
    snprintf(cut, sizeof cut, "%s/cut.journal", dir);
    snprintf(longer, sizeof longer, "%s/longer.journal", dir);
    copy_sized(jpath, cut, (off_t)used);
    copy_sized(jpath, longer, (off_t)used + (8 << 20));
    const char *paths[] = {jpath, cut, longer};
    for (int i = 0; i < 3; i++) {
        sl_run j = read_journal(paths[i]);
        cr_assert_eq(calls_of(&j, "a"), 200000, "%s", paths[i]);
        sl_run_free(&j);
    }
    likwid_markerClose();
    /* A later cycle's journal: the pieces copied into a new file, which
     * grows with them as well. */
    likwid_markerInit();
    snprintf(jpath, sizeof jpath, "%.*s.cycle2.h5.journal", (int)strlen(output) - 3, output);
    size_follows_use(jpath);
    likwid_markerStartRegion("b");
    likwid_markerStopRegion("b");
    size_follows_use(jpath);
    likwid_markerClose();
}

/* Killed right after the file grew for a new piece (kill_at_growth.c),
 * before the piece was mapped or recorded: the file is longer than its
 * pieces, and the journal reads back every call that had ended. */
extern int tu_kill_at_growth;

Test(journal_grow, killed_while_growing, .init = setup)
{
    int64_t *done = mmap(NULL, sizeof *done, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                         -1, 0);
    cr_assert_neq(done, MAP_FAILED);
    *done = 0;
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        tu_kill_at_growth = 6;      /* Init's piece, then 128 KiB, 256 KiB, ... */
        likwid_markerInit();
        for (int i = 0; i < 1000000; i++) {
            likwid_markerStartRegion("a");
            likwid_markerStopRegion("a");
            __atomic_store_n(done, i + 1, __ATOMIC_RELEASE);
        }
        _exit(3);       /* never: the sixth growth comes long before */
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "not killed while growing: %#x", st);
    char jpath[700];
    snprintf(jpath, sizeof jpath, "%s/out-%d.h5.journal", dir, (int)pid);
    uint64_t used = used_of(jpath);
    struct stat fst;
    cr_assert_eq(stat(jpath, &fst), 0);
    cr_assert_gt((uint64_t)fst.st_size, used + ((uint64_t)512 << 10),
                 "the file (%lld bytes) not grown past what it holds (%llu)",
                 (long long)fst.st_size, (unsigned long long)used);
    sl_run j = read_journal(jpath);
    int64_t n = calls_of(&j, "a"), ended = __atomic_load_n(done, __ATOMIC_ACQUIRE);
    cr_assert(n == ended || n == ended + 1, "%lld calls read back, %lld ended", (long long)n,
              (long long)ended);
    cr_assert_gt(ended, 10000);
    sl_run_free(&j);
    unlink(jpath);
}
