/* gen_markerfile T R E OUT: writes a LIKWID 5.2-style marker file with T
 * threads (CPUs 0..T-1), R regions and E events per value line, every
 * region run on every thread. Values are deterministic, so runs compare. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long arg(const char *s, const char *what, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 1 || v > max) {
        fprintf(stderr, "gen_markerfile: bad %s '%s': expected 1..%ld\n", what, s, max);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: gen_markerfile THREADS REGIONS EVENTS OUT\n");
        return 2;
    }
    long T = arg(argv[1], "THREADS", 100000), R = arg(argv[2], "REGIONS", 10000000),
         E = arg(argv[3], "EVENTS", 100000);
    FILE *f = fopen(argv[4], "w");
    if (!f) {
        fprintf(stderr, "gen_markerfile: %s: %s\n", argv[4], strerror(errno));
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    fprintf(f, "%ld %ld 1\n", T, R);
    for (long r = 0; r < R; r++)
        fprintf(f, "%ld:region_%ld-0\n", r, r);
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    for (long r = 0; r < R; r++) {
        for (long t = 0; t < T; t++) {
            long count = 1 + (r + t) % 1000;
            fprintf(f, "%ld 0 %ld %ld %e %ld ", r, t, count, 1e-4 * (double)count, E);
            for (long e = 0; e < E; e++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                fprintf(f, "%e ", (double)(x >> 24));
            }
            fputc('\n', f);
        }
    }
    if (fclose(f)) {
        fprintf(stderr, "gen_markerfile: %s: %s\n", argv[4], strerror(errno));
        return 1;
    }
    return 0;
}
