/* mutate IN OUTDIR N SEED: writes N damaged copies of IN, OUTDIR/NAME-<i>.h5
 * (NAME: IN's base name without .h5), each with one change, reproducible
 * from SEED (splitmix64):
 *   - every 5th a range of 1..64 bytes zeroed, the others one bit flipped;
 *   - even i: the position spread over the whole file (the file cut in N/2
 *     strata, one position drawn in each);
 *   - odd i: inside a global heap collection ("GCOL" + version 1), where
 *     libhdf5 keeps variable-length strings without a checksum and where
 *     single flipped bits crashed or hung every reader before (issue #12).
 * Prints one line per mutant: "FILE OFFSET flip BIT" or "FILE OFFSET zero LEN".
 * Exit 0, or 1 with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: mutate IN OUTDIR N SEED\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0, n;
    unsigned char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            buf = realloc(buf, cap);
            if (!buf)
                return 1;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    long count = atol(argv[3]);
    state = strtoull(argv[4], NULL, 10);
    if (len < 64 || count < 1) {
        fprintf(stderr, "mutate: %s: too small, or N < 1\n", argv[1]);
        return 1;
    }
    /* the collections: [start, start + size) for each "GCOL\1" */
    size_t heaps[256][2], nheaps = 0;
    for (size_t i = 0; i + 16 <= len && nheaps < 256; i++)
        if (!memcmp(buf + i, "GCOL\1", 5)) {
            uint64_t s = 0;
            for (int k = 7; k >= 0; k--)
                s = s << 8 | buf[i + 8 + k];
            if (s > len - i)
                s = len - i;
            heaps[nheaps][0] = i;
            heaps[nheaps++][1] = s;
        }
    const char *base = strrchr(argv[1], '/');
    base = base ? base + 1 : argv[1];
    size_t blen = strlen(base);
    if (blen > 3 && !strcmp(base + blen - 3, ".h5"))
        blen -= 3;
    unsigned char *m = malloc(len);
    if (!m)
        return 1;
    size_t strata = (size_t)(count + 1) / 2, stratum = len / strata ? len / strata : 1;
    for (long i = 0; i < count; i++) {
        size_t pos;
        if (i % 2 == 1 && nheaps) {
            size_t h = next() % nheaps;
            pos = heaps[h][0] + next() % heaps[h][1];
        } else {
            size_t s = (size_t)i / 2;
            pos = s * stratum + next() % stratum;
            if (pos >= len)
                pos = len - 1;
        }
        memcpy(m, buf, len);
        char out[4096];
        snprintf(out, sizeof out, "%s/%.*s-%ld.h5", argv[2], (int)blen, base, i);
        if (i % 5 == 4) {
            size_t z = 1 + next() % 64;
            if (z > len - pos)
                z = len - pos;
            memset(m + pos, 0, z);
            printf("%s %zu zero %zu\n", out, pos, z);
        } else {
            int bit = (int)(next() % 8);
            m[pos] ^= (unsigned char)(1u << bit);
            printf("%s %zu flip %d\n", out, pos, bit);
        }
        FILE *o = fopen(out, "wb");
        if (!o || fwrite(m, 1, len, o) != len || fclose(o)) {
            perror(out);
            return 1;
        }
    }
    free(m);
    free(buf);
    return 0;
}
