/* The floor of `scope-likwid merge`: a plain H5Ocopy loop over the same
 * inputs, nothing checked and nothing added. Every rank<...> group of every
 * input, in the order given, is copied into OUT under a name of its own
 * (copy<N>), and the first input's /metadata once. The file-access
 * settings are merge's own (inputs read whole into memory, a fixed 128 KiB
 * metadata cache on both sides, the output's library-version bounds), so
 * the difference to merge is what merge does besides the copy. The output
 * is fsynced at the end, as merge places every file it writes.
 * bench/bench_floors.sh times it interleaved with merge.
 * usage: floor_merge OUT.h5 IN.h5...
 * Prints "floor_merge_ms MS" (the whole loop, files opened and closed). */
#include <fcntl.h>
#include "floor_util.h"
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct loop {
    hid_t dst;
    unsigned copies;
    int failed;
} loop;

static herr_t copy_rank(hid_t src, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    loop *l = data;
    if (strncmp(name, "rank", 4) != 0)
        return 0;
    char out[32];
    snprintf(out, sizeof out, "copy%u", l->copies++);
    if (H5Ocopy(src, name, l->dst, out, H5P_DEFAULT, H5P_DEFAULT) < 0)
        l->failed = 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: floor_merge OUT.h5 IN.h5...\n");
        return 2;
    }
    double t0 = floor_now_ms();
    hid_t out_fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t in_fapl = H5Pcreate(H5P_FILE_ACCESS);
    floor_small_cache(out_fapl);
    floor_small_cache(in_fapl);
    H5Pset_libver_bounds(out_fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    H5Pset_fapl_core(in_fapl, 1u << 20, 0);
    loop l = {H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, out_fapl), 0, 0};
    if (l.dst < 0)
        return 1;
    for (int i = 2; i < argc; i++) {
        hid_t src = H5Fopen(argv[i], H5F_ACC_RDONLY, in_fapl);
        if (src < 0)
            return 1;
        hsize_t idx = 0;
        H5Literate(src, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_rank, &l);
        if (i == 2 && H5Lexists(src, "metadata", H5P_DEFAULT) > 0 &&
            H5Ocopy(src, "metadata", l.dst, "metadata", H5P_DEFAULT, H5P_DEFAULT) < 0)
            l.failed = 1;
        H5Fclose(src);
    }
    if (H5Fclose(l.dst) < 0 || l.failed)
        return 1;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0 || fsync(fd) < 0)
        return 1;
    close(fd);
    printf("floor_merge_ms %.1f\n", floor_now_ms() - t0);
    return 0;
}
