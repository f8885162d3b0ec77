/* Where files go: never overwritten, numbered names, nothing left behind on
 * failure; sl_h5_into on foreign and non-HDF5 files; sl_h5_read on files
 * that are not ours. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "h5check.h"
#include "schema.h"
#include "h5read.h"
#include "h5write.h"
#include "schema.h"

static char *dir;
static sl_run run;
static sl_diag diag;

static void setup(void)
{
    cr_redirect_stderr(); /* checked: HDF5 must never print */
    fixture_run(&run, 0);
    dir = fixture_dir();
    sl_diag_init(&diag);
}

static void teardown(void)
{
    sl_run_free(&run);
    fixture_rmdir(dir);
    free(dir);
    sl_diag_free(&diag);
}

TestSuite(files, .init = setup, .fini = teardown);

static char *in_dir(const char *name)
{
    char *p = NULL;
    cr_assert_geq(asprintf(&p, "%s/%s", dir, name), 0);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_listing(const char *want)
{
    char *ls = fixture_ls(dir);
    cr_expect_str_eq(ls, want);
    free(ls);
}

static void expect_quiet(void)
{
    fflush(stderr);
    cr_expect_stderr_eq_str("", "HDF5 (or we) printed to stderr");
}

Test(files, existing_file_is_never_overwritten)
{
    char *path = in_dir("out.h5");
    char *w1 = NULL, *w2 = NULL, *w3 = NULL;
    cr_assert_eq(sl_h5_write(path, &run, 1, &w1, &diag), 0);
    size_t len1;
    char *before = slurp(path, &len1);
    cr_assert_eq(sl_h5_write(path, &run, 1, &w2, &diag), 0);
    cr_assert_eq(sl_h5_write(path, &run, 1, &w3, &diag), 0);
    cr_expect_str_eq(w1, path);
    char *p1 = in_dir("out.1.h5"), *p2 = in_dir("out.2.h5");
    cr_expect_str_eq(w2, p1);
    cr_expect_str_eq(w3, p2);
    size_t len2;
    char *after = slurp(path, &len2);
    cr_expect(len1 == len2 && memcmp(before, after, len1) == 0, "first file changed");
    expect_listing("out.1.h5\nout.2.h5\nout.h5");
    free(before);
    free(after);
    free(p1);
    free(p2);
    free(w1);
    free(w2);
    free(w3);
    free(path);
    expect_quiet();
}

Test(files, numbered_name_without_extension)
{
    char *path = in_dir("result");
    spit(path, "taken");
    char *w = NULL;
    cr_assert_eq(sl_h5_write(path, &run, 1, &w, &diag), 0);
    char *want = in_dir("result.1");
    cr_expect_str_eq(w, want);
    expect_listing("result\nresult.1");
    free(want);
    free(w);
    free(path);
}

Test(files, missing_directory_fails_and_leaves_nothing)
{
    char *path = in_dir("no/such/dir/out.h5");
    char *w = (char *)1;
    int rc = sl_h5_write(path, &run, 1, &w, &diag);
    cr_expect_eq(rc, -ENOENT);
    cr_expect_null(w);
    cr_expect_gt(diag.count, 0u);
    expect_listing("");
    free(path);
    expect_quiet();
}

Test(files, file_as_directory_fails_with_enotdir)
{
    /* tests run as root, which ignores permissions: a regular file as the
     * "directory" makes the write fail for everyone */
    char *plain = in_dir("plain");
    spit(plain, "x");
    char *path = in_dir("plain/out.h5");
    cr_expect_eq(sl_h5_write(path, &run, 1, NULL, &diag), -ENOTDIR);
    cr_expect_gt(diag.count, 0u);
    expect_listing("plain");
    free(path);
    free(plain);
    expect_quiet();
}

Test(files, hdf5_failure_leaves_no_file_and_prints_nothing)
{
    /* the same timing tag twice: the second group cannot be created */
    sl_timing_region *t = sl_timing_add(&run.timing, "solve-step", 10, 1, 0);
    cr_assert_not_null(t);
    char *path = in_dir("out.h5");
    int rc = sl_h5_write(path, &run, 1, NULL, &diag);
    cr_expect_lt(rc, 0);
    cr_expect_gt(diag.count, 0u);
    cr_expect_not_null(strstr(diag.lines[0], "solve-step"), "%s", diag.lines[0]);
    expect_listing("");
    free(path);
    expect_quiet();
}

Test(files, two_runs_with_one_rank_are_refused)
{
    sl_run two[2];
    fixture_run(&two[0], 1);
    fixture_run(&two[1], 1);
    char *path = in_dir("out.h5");
    cr_expect_eq(sl_h5_write(path, two, 2, NULL, &diag), -EINVAL);
    expect_listing("");
    sl_run_free(&two[0]);
    sl_run_free(&two[1]);
    free(path);
}

/* ---- sl_h5_into ---- */

static void make_app_file(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    hid_t g = H5Gcreate2(f, "app", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = {3};
    hid_t s = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(g, "data", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int v[3] = {1, 2, 3};
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
    H5Fclose(f);
}

static void expect_app_data(hid_t f)
{
    hid_t d = H5Dopen2(f, "app/data", H5P_DEFAULT);
    cr_assert_geq(d, 0, "/app/data lost");
    int v[3] = {0, 0, 0};
    cr_assert_geq(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    cr_expect(v[0] == 1 && v[1] == 2 && v[2] == 3, "/app/data changed");
    H5Dclose(d);
}

Test(files, into_adds_likwid_and_keeps_the_rest)
{
    char *path = in_dir("app.h5");
    make_app_file(path);
    cr_assert_eq(chmod(path, 0640), 0);
    int rc = sl_h5_into(path, &run, &diag);
    cr_assert_eq(rc, 0, "%s", diag.kept ? diag.lines[0] : "");
    expect_listing("app.h5");
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0640u, "mode not kept");

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    expect_app_data(f);
    hid_t g = H5Gopen2(f, "rank0/likwid", H5P_DEFAULT);
    cr_assert_geq(g, 0);
    cr_expect_eq(chk_i64_attr(g, "num_regions"), (int64_t)run.likwid.nregions);
    H5Gclose(g);
    g = H5Gopen2(f, "rank0", H5P_DEFAULT);
    char *host = chk_str_attr(g, "hostname");
    cr_expect_str_eq(host, "node\\xFF01");
    free(host);
    /* a rank group it creates is complete: timing/ is always present */
    cr_expect_eq(H5Lexists(g, "timing", H5P_DEFAULT), 1, "new rank group lacks timing/");
    H5Gclose(g);
    H5Fclose(f);

    /* again, with other counters: likwid/ is replaced, not merged */
    sl_run other;
    cr_assert_eq(sl_run_init(&other), 0);
    other.likwid.source = SL_SOURCE_MARKER_FILE;
    cr_assert_not_null(sl_likwid_add(&other.likwid, "only", 4, 0, "G", SL_SOURCE_MARKER_FILE, 1, 1, 0, 0));
    cr_assert_eq(sl_h5_into(path, &other, &diag), 0);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    expect_app_data(f);
    g = H5Gopen2(f, "rank0/likwid", H5P_DEFAULT);
    cr_expect_eq(chk_i64_attr(g, "num_regions"), 1);
    char *src = chk_str_attr(g, "source");
    cr_expect_str_eq(src, "marker_file");
    free(src);
    cr_expect_eq(H5Lexists(g, "regions/only", H5P_DEFAULT), 1);
    cr_expect_eq(H5Lexists(g, "regions/solve-step%g0", H5P_DEFAULT), 0);
    H5Gclose(g);
    H5Fclose(f);
    expect_listing("app.h5");
    sl_run_free(&other);
    free(path);
    expect_quiet();
}

Test(files, into_keeps_an_existing_rank_group_attributes)
{
    char *path = in_dir("mine.h5");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, "pid", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    int64_t pid = 77;
    H5Awrite(a, H5T_NATIVE_INT64, &pid);
    H5Aclose(a);
    H5Sclose(s);
    H5Gclose(g);
    H5Fclose(f);
    cr_assert_eq(sl_h5_into(path, &run, &diag), 0);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    g = H5Gopen2(f, "rank0", H5P_DEFAULT);
    cr_expect_eq(chk_i64_attr(g, "pid"), 77, "existing attribute replaced");
    cr_expect_eq(chk_i64_attr(g, "mpi_rank"), 0, "missing attribute not added");
    H5Gclose(g);
    H5Fclose(f);
    free(path);
}

Test(files, into_a_non_hdf5_file_fails_and_leaves_it_alone)
{
    char *path = in_dir("notes.txt");
    const char *text = "this is not HDF5\n\x89HDF but not really\n";
    spit(path, text);
    cr_expect_eq(sl_h5_into(path, &run, &diag), -EINVAL);
    cr_expect_gt(diag.count, 0u);
    size_t len;
    char *now = slurp(path, &len);
    cr_expect(len == strlen(text) && memcmp(now, text, len) == 0, "file changed");
    free(now);
    expect_listing("notes.txt");
    free(path);
    expect_quiet();
}

Test(files, into_a_missing_file_fails)
{
    char *path = in_dir("missing.h5");
    cr_expect_eq(sl_h5_into(path, &run, &diag), -ENOENT);
    expect_listing("");
    free(path);
}

/* ---- sl_h5_read on files that are not ours ---- */

static void expect_read_fails(const char *path, const char *needle)
{
    sl_runset set;
    sl_diag d;
    sl_diag_init(&d);
    cr_expect_eq(sl_h5_read(path, &set, &d), -EINVAL);
    cr_expect_eq(set.nruns, 0u);
    cr_assert_gt(d.kept, 0u);
    cr_expect_not_null(strstr(d.lines[0], needle), "diag \"%s\" lacks \"%s\"", d.lines[0], needle);
    cr_expect_not_null(strstr(d.lines[0], "expected"), "%s", d.lines[0]);
    sl_diag_free(&d);
}

Test(files, read_rejects_files_that_are_not_ours)
{
    char *text = in_dir("text.h5");
    spit(text, "plain text");
    expect_read_fails(text, "not an HDF5 file");
    char *app = in_dir("app.h5");
    make_app_file(app);
    expect_read_fails(app, "/format");
    free(text);
    free(app);
    expect_quiet();
}

/* Writes our file, then damages it with fn. */
static char *damaged(const char *name, void (*fn)(hid_t f))
{
    char *path = in_dir(name);
    cr_assert_eq(sl_h5_write(path, &run, 1, NULL, &diag), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    fn(f);
    H5Fclose(f);
    return path;
}

static void bump_version(hid_t f)
{
    hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    int64_t v = SL_H5_FORMAT_VERSION + 1;
    H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
}

static void drop_events(hid_t f)
{
    cr_assert_geq(H5Ldelete(f, "rank0/likwid/regions/from-file/events", H5P_DEFAULT), 0);
}

static void widen_cpus(hid_t f)
{
    cr_assert_geq(H5Ldelete(f, "rank0/likwid/regions/from-file/cpus", H5P_DEFAULT), 0);
    hsize_t dims[1] = {4}; /* T is 3 */
    hid_t s = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(f, "rank0/likwid/regions/from-file/cpus", H5T_STD_I64LE, s, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(s);
}

static void string_as_number(hid_t f)
{
    cr_assert_geq(H5Adelete_by_name(f, "rank0", "pid", H5P_DEFAULT), 0);
    hid_t g = H5Gopen2(f, "rank0", H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 4);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, "pid", t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, "123");
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    H5Gclose(g);
}

static void drop_timing(hid_t f)
{
    cr_assert_geq(H5Ldelete(f, "rank0/timing", H5P_DEFAULT), 0);
}

static void drop_regions_link(hid_t f)
{
    cr_assert_geq(H5Ldelete(f, "rank0/regions", H5P_DEFAULT), 0);
}

/* rank0/regions a group of its own instead of the hard link */
static void split_regions_link(hid_t f)
{
    drop_regions_link(f);
    hid_t g = H5Gcreate2(f, "rank0/regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(g, 0);
    H5Gclose(g);
}

static void metadata_not_a_group(hid_t f)
{
    cr_assert_geq(H5Ldelete(f, "metadata", H5P_DEFAULT), 0);
    hsize_t one = 1;
    hid_t s = H5Screate_simple(1, &one, NULL);
    hid_t d = H5Dcreate2(f, "metadata", H5T_NATIVE_INT64, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    cr_assert_geq(d, 0);
    H5Dclose(d);
    H5Sclose(s);
}

static void string_mpi_size(hid_t f)
{
    hid_t g = H5Gopen2(f, "metadata", H5P_DEFAULT);
    cr_assert_geq(g, 0);
    H5Adelete(g, "mpi_size");
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    H5Tset_size(t, 2);
    hid_t a = H5Acreate2(g, "mpi_size", t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, "4");
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    H5Gclose(g);
}

static void zero_version(hid_t f)
{
    hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    int64_t v = 0;
    H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
}

/* Deletes attr `name` of every timing region. */
static void drop_timing_attr(hid_t f, const char *name)
{
    hid_t g = H5Gopen2(f, "rank0/timing/regions", H5P_DEFAULT);
    H5G_info_t info;
    cr_assert_geq(H5Gget_info(g, &info), 0);
    cr_assert_gt(info.nlinks, 1);
    for (hsize_t i = 0; i < info.nlinks; i++) {
        hid_t r = H5Oopen_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT);
        cr_assert_geq(r, 0);
        cr_assert_geq(H5Adelete(r, name), 0, "region %llu: %s", (unsigned long long)i, name);
        H5Oclose(r);
    }
    H5Gclose(g);
}

static void drop_dropped_calls(hid_t f)
{
    drop_timing_attr(f, "dropped_calls");
}

/* Optional fields (schema rows SL_H5_OPT) may be absent: read as 0. */
static void drop_optional(hid_t f)
{
    drop_timing_attr(f, "unmatched_stops");
    drop_timing_attr(f, "nested_starts");
}

Test(files, read_takes_optional_fields_as_absent)
{
    char *p = damaged("opt.h5", drop_optional);
    sl_runset set;
    cr_assert_eq(sl_h5_read(p, &set, &diag), 0, "%s", diag.kept ? diag.lines[0] : "");
    cr_assert_eq(set.nruns, 1);
    cr_assert_gt(set.runs[0].timing.nregions, 1); /* the fixture's are not all 0 */
    for (size_t i = 0; i < set.runs[0].timing.nregions; i++) {
        cr_expect_eq(set.runs[0].timing.regions[i].unmatched_stops, 0);
        cr_expect_eq(set.runs[0].timing.regions[i].nested_starts, 0);
    }
    sl_runset_free(&set);
    free(p);
    expect_quiet();
}

Test(files, read_rejects_damaged_files)
{
    char *p;
    expect_read_fails(p = damaged("v2.h5", bump_version), "format_version");
    free(p);
    expect_read_fails(p = damaged("v0.h5", zero_version), "/format_version: is 0");
    free(p);
    expect_read_fails(p = damaged("nodropped.h5", drop_dropped_calls),
                      "dropped_calls: attribute missing");
    free(p);
    expect_read_fails(p = damaged("noevents.h5", drop_events), "events: dataset missing");
    free(p);
    expect_read_fails(p = damaged("wide.h5", widen_cpus), "times: wrong shape");
    free(p);
    expect_read_fails(p = damaged("strpid.h5", string_as_number), "/rank0/pid");
    free(p);
    expect_read_fails(p = damaged("notiming.h5", drop_timing), "/rank0/timing");
    free(p);
    expect_read_fails(p = damaged("nolink.h5", drop_regions_link),
                      "/rank0/regions: group missing: expected a hard link to timing/regions");
    free(p);
    expect_read_fails(p = damaged("split.h5", split_regions_link),
                      "/rank0/regions: not the same group: expected a hard link");
    free(p);
    expect_read_fails(p = damaged("metadata.h5", metadata_not_a_group), "/metadata: not a group");
    free(p);
    expect_read_fails(p = damaged("mpisize.h5", string_mpi_size), "/metadata/mpi_size");
    free(p);
    expect_quiet();
}

/* Every entry point silences HDF5's error printing for its own length and
 * gives the caller's handler back, on success and on failure. */
static herr_t callers_handler(hid_t stack, void *data)
{
    (void)stack;
    ++*(int *)data;
    return 0;
}

static void assert_handler_back(H5E_auto2_t want, void *want_data, const char *after)
{
    H5E_auto2_t func = NULL;
    void *data = NULL;
    cr_assert_geq(H5Eget_auto2(H5E_DEFAULT, &func, &data), 0);
    cr_assert(func == want && data == want_data, "after %s: HDF5's error handler not restored",
              after);
}

Test(files, hdf5_error_handler_is_restored)
{
    int calls = 0;
    cr_assert_geq(H5Eset_auto2(H5E_DEFAULT, callers_handler, &calls), 0);
    char *good = in_dir("good.h5"), *bad = in_dir("bad.h5"), *missing = in_dir("no/such.h5");
    FILE *f = fopen(bad, "w");
    cr_assert_not_null(f);
    fputs("not hdf5\n", f);
    fclose(f);

    cr_assert_eq(sl_h5_write(good, &run, 1, NULL, &diag), 0);
    assert_handler_back(callers_handler, &calls, "sl_h5_write");
    cr_assert_neq(sl_h5_write(missing, &run, 1, NULL, &diag), 0);
    assert_handler_back(callers_handler, &calls, "a failed sl_h5_write");
    sl_runset set;
    cr_assert_eq(sl_h5_read(good, &set, &diag), 0);
    sl_runset_free(&set);
    assert_handler_back(callers_handler, &calls, "sl_h5_read");
    cr_assert_neq(sl_h5_read(bad, &set, &diag), 0);
    assert_handler_back(callers_handler, &calls, "a failed sl_h5_read");
    cr_assert_neq(sl_h5_into(bad, &run, &diag), 0);
    assert_handler_back(callers_handler, &calls, "a failed sl_h5_into");
    /* the failures above went to diag, never through the handler */
    cr_assert_eq(calls, 0, "HDF5 printed %d error stacks during our calls", calls);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    free(good);
    free(bad);
    free(missing);
}
