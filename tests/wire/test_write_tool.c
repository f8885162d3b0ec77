/* scope-likwid-write RESCUE OUT.h5, run as the shim runs it: writes the
 * HDF5 file, prints the name used, keeps the rescue file; refuses a cut
 * rescue file with "scope-likwid-write: ..." lines and no output file. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "wire.h"
#include "wire_helpers.h"

static char dir[64];

static void setup(void)
{
    strcpy(dir, "/tmp/sl-write-test.XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect(system(cmd) == 0);
}

/* dir/name, newly allocated (a test process is short-lived: never freed) */
static char *path(const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    cr_assert(p);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* Runs the tool; returns its exit status, stdout and stderr in files. */
static int run_write(const char *rescue, const char *out)
{
    const char *exe = getenv("SL_WRITE_EXE");
    cr_assert(exe, "SL_WRITE_EXE not set");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' >'%s' 2>'%s'", exe, rescue, out, path("stdout"),
             path("stderr"));
    int st = system(cmd);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static char *slurp(const char *p)
{
    char *b;
    size_t n;
    cr_assert(sl_read_file(p, 0, &b, &n) == 0, "%s", p);
    return b;
}

static void write_rescue(const char *p, size_t keep)
{
    sl_run run;
    build_rich_run(&run);
    size_t len;
    int rc;
    char *buf = encode_run(&run, &len, &rc);
    cr_assert_eq(rc, 0);
    if (keep && keep < len)
        len = keep;
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    cr_assert(write(fd, buf, len) == (ssize_t)len);
    close(fd);
    free(buf);
    sl_run_free(&run);
}

static int is_hdf5(const char *p)
{
    char sig[8] = {0};
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, sig, sizeof sig);
    close(fd);
    return n == 8 && memcmp(sig, "\x89HDF\r\n\x1a\n", 8) == 0;
}

Test(write_tool, writes_and_reports_the_name, .init = setup, .fini = teardown)
{
    char *rescue = path("rescue.txt");
    write_rescue(rescue, 0);
    cr_assert_eq(run_write(rescue, path("out.h5")), 0, "stderr: %s", slurp(path("stderr")));
    char want[160];
    snprintf(want, sizeof want, "%s\n", path("out.h5"));
    cr_expect_str_eq(slurp(path("stdout")), want);
    cr_expect(is_hdf5(path("out.h5")));
    /* Once the result is written and named, the writer removes the rescue
     * file: a recover after a SIGKILL then finds nothing to write twice. */
    cr_expect(access(rescue, F_OK) != 0, "the rescue file stayed next to its result");
    /* an existing file is never overwritten */
    write_rescue(rescue, 0);
    cr_assert_eq(run_write(rescue, path("out.h5")), 0, "stderr: %s", slurp(path("stderr")));
    snprintf(want, sizeof want, "%s\n", path("out.1.h5"));
    cr_expect_str_eq(slurp(path("stdout")), want);
    cr_expect(is_hdf5(path("out.1.h5")));
}

Test(write_tool, refuses_a_cut_rescue_file, .init = setup, .fini = teardown)
{
    char *rescue = path("rescue.txt");
    write_rescue(rescue, 300);
    cr_expect_eq(run_write(rescue, path("out.h5")), 1);
    char *err = slurp(path("stderr"));
    cr_expect(strncmp(err, "scope-likwid-write: ", 20) == 0, "%s", err);
    cr_expect(strstr(err, "truncated") != NULL, "%s", err);
    cr_expect_str_eq(slurp(path("stdout")), "");
    cr_expect(access(path("out.h5"), F_OK) != 0, "no output file");
    cr_expect(access(rescue, F_OK) == 0);
}

Test(write_tool, missing_rescue_file_and_usage, .init = setup, .fini = teardown)
{
    cr_expect_eq(run_write(path("missing.txt"), path("out.h5")), 1);
    cr_expect(strstr(slurp(path("stderr")), "scope-likwid-write: ") != NULL);
    const char *exe = getenv("SL_WRITE_EXE");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' >/dev/null 2>&1", exe);
    int st = system(cmd);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1);
}
