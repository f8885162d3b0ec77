/* The application side of the fault cases at the shim's edges (what real
 * codes and runtimes do around it: reused tag buffers, a broken or replaced
 * stderr, several Init..Close cycles). Like fault_app.c: built against the
 * real LIKWID headers (the simulated LIKWID replaces the library at run
 * time), deterministic stdout, the same run with and without the shim.
 *
 *   edge_app MODE
 *
 *   page-end-tag     a 12-byte tag that reaches into the next page, then a
 *                    2-byte tag at the same pointer once that page is
 *                    PROT_NONE (a guard page, the end of an mmap'd buffer)
 *   stderr-broken    after Init, waits until stderr is a pipe without a
 *                    reader (the test closes it once ./ready exists), then
 *                    times and closes; never writes to stderr itself
 *   fd2-before-init  closes fd 2 and opens data.txt (it gets fd 2) before
 *                    Init, writes a line to it before Init and after Close
 *   first-run        times "first" (3 calls); second-run: "second" (2 calls)
 *   three-cycles     three Init..Close cycles (pylikwid's tests do that),
 *                    cycle N timing "cycN" N times and printing what
 *                    GetRegion answers for it before its Close */
#include <errno.h>
#include <fcntl.h>
#include <likwid-marker.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    sink = s;
}

static void work_region(const char *tag, int calls)
{
    for (int i = 0; i < calls; i++) {
        LIKWID_MARKER_START(tag);
        work(20000);
        LIKWID_MARKER_STOP(tag);
    }
}

static int page_end_tag(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("edge_app: mmap");
        return 1;
    }
    /* 5 bytes before the second page: "abcdefghijkl" crosses into it. */
    char *tag = base + page - 5;
    memcpy(tag, "abcdefghijkl", 13);
    LIKWID_MARKER_INIT;
    work_region(tag, 1);
    memcpy(tag, "ab", 3);       /* ends 2 bytes before the second page */
    if (mprotect(base + page, (size_t)page, PROT_NONE) != 0) {
        perror("edge_app: mprotect");
        return 1;
    }
    work_region(tag, 3);
    LIKWID_MARKER_CLOSE;
    printf("edge_app: tag at the end of a page timed\n");
    return 0;
}

static int stderr_broken(void)
{
    LIKWID_MARKER_INIT;
    int fd = open("ready", O_WRONLY | O_CREAT, 0644);
    if (fd < 0) {
        printf("edge_app: cannot create ./ready\n");
        return 1;
    }
    close(fd);
    /* A pipe's write end reports POLLERR once its last reader is gone. */
    struct pollfd p = {.fd = 2, .events = 0};    /* only POLLERR, POLLHUP */
    int waited = 0;
    while (waited < 600) {
        p.revents = 0;
        if (poll(&p, 1, 100) > 0 && (p.revents & POLLERR))
            break;
        waited++;
    }
    work_region("work", 3);
    LIKWID_MARKER_CLOSE;
    /* Buffered: lost if the process dies before exit flushes it. */
    printf("edge_app: stderr %s; done\n", (p.revents & POLLERR) ? "has no reader" : "still read");
    return 0;
}

static int fd2_before_init(void)
{
    close(2);
    int fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd != 2) {
        printf("edge_app: data file got fd %d, not 2\n", fd);
        return 1;
    }
    static const char line[] = "application data\n";
    if (write(2, line, sizeof line - 1) < 0)
        return 1;
    LIKWID_MARKER_INIT;
    work_region("work", 3);
    LIKWID_MARKER_CLOSE;
    if (write(2, line, sizeof line - 1) < 0)
        return 1;
    printf("edge_app: data on fd 2 from before Init\n");
    return 0;
}

static int tagged_run(const char *tag, int calls)
{
    LIKWID_MARKER_INIT;
    work_region(tag, calls);
    LIKWID_MARKER_CLOSE;
    printf("edge_app: %s timed\n", tag);
    return 0;
}

static int three_cycles(void)
{
    for (int c = 1; c <= 3; c++) {
        char tag[8];
        snprintf(tag, sizeof tag, "cyc%d", c);
        LIKWID_MARKER_INIT;
        work_region(tag, c);
        int nr = 8, count = -1;
        double ev[8] = {0}, time = -1;
        LIKWID_MARKER_GET(tag, &nr, ev, &time, &count);
        /* Event values and times grow with the clock: only whether they are there. */
        printf("cycle %d: GetRegion(%s): count %d, %d events, %s, time %s\n", c, tag, count, nr,
               nr > 0 && ev[0] > 0 ? "counted" : "no counts", time > 0 ? "> 0" : "0");
        LIKWID_MARKER_CLOSE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: edge_app MODE\n");
        return 2;
    }
    const char *m = argv[1];
    if (strcmp(m, "page-end-tag") == 0)
        return page_end_tag();
    if (strcmp(m, "stderr-broken") == 0)
        return stderr_broken();
    if (strcmp(m, "fd2-before-init") == 0)
        return fd2_before_init();
    if (strcmp(m, "three-cycles") == 0)
        return three_cycles();
    if (strcmp(m, "first-run") == 0)
        return tagged_run("first", 3);
    if (strcmp(m, "second-run") == 0)
        return tagged_run("second", 2);
    fprintf(stderr, "edge_app: unknown mode '%s'\n", m);
    return 2;
}
