/* Output template expansion and rank detection. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ground.h"

/* Criterion moves fd 2: the shim writes only to the stderr it took. */
static void redirect_stderr(void)
{
    cr_redirect_stderr();
    sl_log_take_stderr();
}

static void clear_env(void)
{
    const char *vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID",
                          "MV2_COMM_WORLD_RANK", "MPI_LOCALRANKID", "ALPS_APP_PE", "PALS_RANKID",
                          "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "JOB_ID",
                          "SLURM_STEP_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                          "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS",
                          "MV2_COMM_WORLD_SIZE", "PALS_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

static char *expand(const char *tmpl, const char *cwd)
{
    /* 2026-12-04 06:05:09 UTC */
    sl_output_vars v = {.rank = 3, .pid = 4711, .host = "node/7", .job = "12345",
                        .user = "ann/b", .unix_s = 1796364309, .cwd = cwd};
    char *s = sl_output_expand(tmpl, &v);
    cr_assert_not_null(s);
    return s;
}

Test(output, codes)
{
    char *s = expand("/r/%r-%p-%h-%j-%%.h5", NULL);
    cr_assert_str_eq(s, "/r/3-4711-node_7-12345-%.h5");
    free(s);
}

/* A site's central directory: user and date (UTC) as directories. */
Test(output, user_and_date_codes)
{
    char *s = expand("/central/%u/%d/%j-%t-rank%r.h5", NULL);
    cr_assert_str_eq(s, "/central/ann_b/2026-12-04/12345-060509-rank3.h5");
    free(s);
    sl_output_vars v = {.rank = 0, .pid = 1, .host = "h", .job = NULL, .user = NULL,
                        .unix_s = 0, .cwd = NULL};
    s = sl_output_expand("%u-%d-%t", &v);
    cr_assert_str_eq(s, "nouser-1970-01-01-000000");
    free(s);
}

/* %u is the real uid's passwd name, whatever USER and LOGNAME say; the
 * number where the uid has no entry. */
Test(output, user_from_passwd)
{
    struct passwd *pw = getpwuid(getuid());
    cr_assert_not_null(pw);
    char *want = strdup(pw->pw_name);
    setenv("USER", "ann", 1);
    setenv("LOGNAME", "bob", 1);
    char *u = sl_user_name(getuid());
    cr_assert_str_eq(u, want, "USER set to another name");
    free(u);
    unsetenv("USER");
    unsetenv("LOGNAME");
    u = sl_user_name(getuid());
    cr_assert_str_eq(u, want, "USER and LOGNAME unset");
    free(u);
    free(want);
    uid_t nobody_known = 4000000123u;
    cr_assert_null(getpwuid(nobody_known), "test premise: uid %u has no passwd entry",
                   (unsigned)nobody_known);
    u = sl_user_name(nobody_known);
    cr_assert_str_eq(u, "4000000123");
    free(u);
}

/* SCOPE_LIKWID_EXCLUDE: shell patterns on the path or the program's name. */
Test(output, exclude_patterns)
{
    cr_assert_not(sl_excluded(NULL, "/usr/bin/python3"));
    cr_assert_not(sl_excluded("", "/usr/bin/python3"));
    cr_assert(sl_excluded("python*", "/usr/bin/python3"), "the name");
    cr_assert(sl_excluded("/opt/*:/usr/bin/*", "/usr/bin/python3"), "the path, second pattern");
    cr_assert_not(sl_excluded("/opt/*:bash", "/usr/bin/python3"));
    cr_assert_not(sl_excluded("python3:", NULL), "no executable known: not excluded");
    cr_assert(sl_excluded("::python3", "/usr/bin/python3"), "empty patterns skipped");
}

Test(output, relative_against_cwd)
{
    char *s = expand("res/out%r.h5", "/home/u/run");
    cr_assert_str_eq(s, "/home/u/run/res/out3.h5");
    free(s);
    s = expand("x.h5", "/");
    cr_assert_str_eq(s, "/x.h5");
    free(s);
    s = expand("/abs/x.h5", "/home/u");
    cr_assert_str_eq(s, "/abs/x.h5");
    free(s);
}

Test(output, bad_codes_kept_literally, .init = redirect_stderr)
{
    char *s = expand("/o/%x%s%n-%", NULL);
    cr_assert_str_eq(s, "/o/%x%s%n-%");
    free(s);
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "scope-likwid: SCOPE_LIKWID_OUTPUT='/o/%x%s%n-%': unknown code '%x': expected one of %r %p %h %j %u %d %t %%; kept literally\n"
        "scope-likwid: SCOPE_LIKWID_OUTPUT='/o/%x%s%n-%': unknown code '%s': expected one of %r %p %h %j %u %d %t %%; kept literally\n"
        "scope-likwid: SCOPE_LIKWID_OUTPUT='/o/%x%s%n-%': unknown code '%n': expected one of %r %p %h %j %u %d %t %%; kept literally\n"
        "scope-likwid: SCOPE_LIKWID_OUTPUT='/o/%x%s%n-%': '%' at the end: expected one of %r %p %h %j %u %d %t %%; kept literally\n");
}

Test(output, missing_host_and_job)
{
    sl_output_vars v = {.rank = 0, .pid = 1, .host = "", .job = NULL, .cwd = NULL};
    char *s = sl_output_expand("%h-%j", &v);
    cr_assert_str_eq(s, "unknownhost-nojob");
    free(s);
}

Test(output, defaults)
{
    cr_assert_str_eq(sl_output_default(1, 0), "scope-likwid-rank%r.h5");
    cr_assert_str_eq(sl_output_default(0, 0), "scope-likwid-%p.h5");
    cr_assert_str_eq(sl_output_default(1, 1), "scope-likwid-%j-rank%r.h5");
    cr_assert_str_eq(sl_output_default(0, 1), "scope-likwid-%j-%p.h5");
}

/* The run id: job + step, the launcher's namespace, and the process for
 * one that is not an MPI rank. */
static void run_id_is(int mpi, const char *want)
{
    char *id = sl_run_id_from_env("node1", 4711, 1733000000123456789, mpi);
    cr_assert_not_null(id);
    cr_expect_str_eq(id, want);
    free(id);
}

Test(output, run_id)
{
    clear_env();
    run_id_is(0, "node1:4711:1733000000123456789");
    run_id_is(1, "node1:4711:1733000000123456789");
    setenv("PMIX_NAMESPACE", "1969422337", 1);
    run_id_is(1, "1969422337");
    unsetenv("PMIX_NAMESPACE");
    setenv("OMPI_MCA_ess_base_jobid", "42", 1);
    run_id_is(1, "42");
    setenv("PBS_JOBID", "77.server", 1);
    run_id_is(1, "pbs-77.server/42");
    unsetenv("OMPI_MCA_ess_base_jobid");
    run_id_is(1, "pbs-77.server");
    setenv("SLURM_STEP_ID", "3", 1);    /* not Slurm's job: not its step */
    run_id_is(1, "pbs-77.server");
    setenv("SLURM_JOB_ID", "88", 1);
    run_id_is(1, "slurm-88.3");
    setenv("PMIX_NAMESPACE", "slurm.pmix.88.3", 1);
    run_id_is(1, "slurm-88.3/slurm.pmix.88.3");
    clear_env();
    setenv("FLUX_JOB_ID", "f2n3", 1);
    run_id_is(1, "flux-f2n3");
    clear_env();
}

/* A process that is not an MPI rank is a launch of its own: two serial
 * runs in one batch script (no step) or one step get distinct ids. */
Test(output, run_id_serial_is_its_own_launch)
{
    clear_env();
    setenv("SLURM_JOB_ID", "45", 1);
    run_id_is(0, "slurm-45/node1:4711:1733000000123456789");
    setenv("SLURM_STEP_ID", "0", 1);
    run_id_is(0, "slurm-45.0/node1:4711:1733000000123456789");
    run_id_is(1, "slurm-45.0");
    clear_env();
    setenv("PBS_JOBID", "77.server", 1);
    run_id_is(0, "pbs-77.server/node1:4711:1733000000123456789");
    clear_env();
}

/* A batch script has SLURM_PROCID=0 and the job's SLURM_NTASKS but is no
 * task of a step: a process it runs is serial. In a step they count. */
Test(output, slurm_task_only_in_a_step)
{
    int64_t r = -5;
    clear_env();
    setenv("SLURM_JOB_ID", "45", 1);
    setenv("SLURM_PROCID", "0", 1);
    setenv("SLURM_NTASKS", "2", 1);
    cr_assert_eq(sl_rank_from_env(&r), 0, "the batch script's process: serial");
    cr_assert_eq(sl_world_size_from_env(), -1);
    setenv("SLURM_STEP_ID", "0", 1);
    cr_assert_eq(sl_rank_from_env(&r), 1, "a task of step 0");
    cr_assert_eq(r, 0);
    cr_assert_eq(sl_world_size_from_env(), 2);
    clear_env();
}

Test(output, rank_first_set_variable_wins)
{
    int64_t r = -5;
    clear_env();
    cr_assert_eq(sl_rank_from_env(&r), 0);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_PROCID", "2", 1);
    setenv("PALS_RANKID", "9", 1);
    cr_assert_eq(sl_rank_from_env(&r), 1);
    cr_assert_eq(r, 2);
    setenv("PMI_RANK", "7", 1);
    cr_assert_eq(sl_rank_from_env(&r), 1);
    cr_assert_eq(r, 7);
}

Test(output, rank_garbage_skipped, .init = redirect_stderr)
{
    int64_t r = -5;
    clear_env();
    setenv("OMPI_COMM_WORLD_RANK", "one", 1);
    setenv("PMIX_RANK", "4", 1);
    cr_assert_eq(sl_rank_from_env(&r), 1);
    cr_assert_eq(r, 4);
    fflush(stderr);
    cr_assert_stderr_eq_str("scope-likwid: OMPI_COMM_WORLD_RANK='one' is not a rank: expected an "
                            "integer >= 0; ignored\n");
}

Test(output, world_of_one_is_serial)
{
    /* Open MPI's singleton (a serial run whose MPI library set PMIX_RANK=0
     * and a size of 1), srun -n 1: a rank, but no MPI job to name. */
    int64_t r = -5;
    clear_env();
    cr_assert_eq(sl_world_size_from_env(), -1);
    setenv("PMIX_RANK", "0", 1);
    cr_assert_eq(sl_rank_from_env(&r), 1, "a rank and no size: MPI");
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    cr_assert_eq(sl_world_size_from_env(), 1);
    cr_assert_eq(sl_rank_from_env(&r), 0, "a world of one: serial");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    setenv("PMIX_SIZE", "1", 1);
    cr_assert_eq(sl_rank_from_env(&r), 0, "PMIx's size of one: serial");
    setenv("PMIX_SIZE", "2", 1);
    cr_assert_eq(sl_rank_from_env(&r), 1);
    cr_assert_eq(r, 0);
    cr_assert_eq(sl_world_size_from_env(), 2);
    setenv("SLURM_NTASKS", "8", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "x", 1);   /* not a count: the next variable */
    cr_assert_eq(sl_world_size_from_env(), 2);
    clear_env();
}

Test(output, job_id)
{
    clear_env();
    cr_assert_null(sl_job_from_env());
    setenv("FLUX_JOB_ID", "f2n3", 1);
    cr_assert_str_eq(sl_job_from_env(), "f2n3");
    setenv("LSB_JOBID", "5", 1);
    cr_assert_str_eq(sl_job_from_env(), "5");
    setenv("PBS_JOBID", "77.server", 1);
    cr_assert_str_eq(sl_job_from_env(), "77.server");
    setenv("SLURM_JOB_ID", "88", 1);
    cr_assert_str_eq(sl_job_from_env(), "88");
}

/* ---- what SCOPE_LIKWID_OUTPUT names: a file, a directory, /dev/null, a device ---- */

static char *place(const char *path, const char *cwd, int *none)
{
    sl_output_vars v = {.rank = 3, .pid = 4711, .host = "h", .job = NULL, .cwd = cwd};
    char *p = strdup(path);
    cr_assert_not_null(p);
    return sl_output_place(p, 0, &v, none);
}

Test(output, place_directory_gets_default_name, .init = redirect_stderr)
{
    char dir[] = "/tmp/sl-place-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char with_slash[64], want[96], file[96];
    snprintf(with_slash, sizeof with_slash, "%s/", dir);
    snprintf(want, sizeof want, "%s/scope-likwid-4711.h5", dir);
    int none = -1;
    char *p = place(dir, "/cwd", &none);
    cr_assert_str_eq(p, want, "an existing directory");
    cr_assert_eq(none, 0);
    free(p);
    p = place(with_slash, "/cwd", &none);
    cr_assert_str_eq(p, want, "with a trailing slash");
    free(p);
    p = place("/tmp/sl-place-none/", "/cwd", &none);
    cr_assert_str_eq(p, "/tmp/sl-place-none/scope-likwid-4711.h5",
                     "a directory to be: the name inside it");
    free(p);
    rmdir("/tmp/sl-place-none");
    snprintf(file, sizeof file, "%s/r.h5", dir);
    p = place(file, "/cwd", &none);
    cr_assert_str_eq(p, file, "a file that does not exist yet: as given");
    free(p);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    p = place(file, "/cwd", &none);
    cr_assert_str_eq(p, file, "a regular file: as given (the writer picks a free name)");
    free(p);
    unlink(file);
    rmdir(dir);
    fflush(stderr);
    cr_assert_stderr_eq_str("", "nothing said about a file or a directory");
}

/* A name in directories not there yet (the man page's Slurm example without
 * mkdir, a name ending in '/'): they are created 0700 whatever the umask. */
static mode_t mode_of(const char *p)
{
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "%s not created", p);
    cr_assert(S_ISDIR(st.st_mode), "%s is not a directory", p);
    return st.st_mode & 07777;
}

Test(output, place_creates_directories, .init = redirect_stderr)
{
    char dir[] = "/tmp/sl-mkdirs-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char file[128], a[128], ab[128], slash[128], want[160];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(ab, sizeof ab, "%s/a/b", dir);
    snprintf(file, sizeof file, "%s/a/b/rank3.h5", dir);
    mode_t old = umask(0777);
    int none = -1;
    char *p = place(file, "/cwd", &none);
    umask(022);
    cr_assert_str_eq(p, file);
    free(p);
    cr_assert_eq(mode_of(a), 0700, "umask 0777: owner-only");
    cr_assert_eq(mode_of(ab), 0700);
    snprintf(slash, sizeof slash, "%s/new/", dir);
    snprintf(want, sizeof want, "%s/new/scope-likwid-4711.h5", dir);
    p = place(slash, "/cwd", &none);
    cr_assert_str_eq(p, want, "a directory to be: the default name inside it");
    free(p);
    snprintf(a, sizeof a, "%s/new", dir);
    cr_assert_eq(mode_of(a), 0700, "umask 022: the owner's alone all the same");
    umask(old);
    rmdir(ab);
    snprintf(ab, sizeof ab, "%s/a", dir);
    rmdir(ab);
    rmdir(a);
    rmdir(dir);
    fflush(stderr);
    cr_assert_stderr_eq_str("", "nothing said when the directories could be made");
}

Test(output, place_directory_cannot_be_made, .init = redirect_stderr)
{
    char dir[] = "/tmp/sl-mkdirs-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char file[128], in[160], want[512];
    snprintf(file, sizeof file, "%s/plain", dir);
    fclose(fopen(file, "w"));
    snprintf(in, sizeof in, "%s/sub/r.h5", file);
    int none = -1;
    char *p = place(in, "/cwd", &none);
    cr_assert_str_eq(p, in, "kept: the writer's failure keeps the timing in a rescue file");
    free(p);
    unlink(file);
    rmdir(dir);
    fflush(stderr);
    snprintf(want, sizeof want,
             "scope-likwid: cannot create the directory %s/sub for the result %s (%s is not "
             "a directory)\n", file, in, file);
    cr_assert_stderr_eq_str(want);
}

Test(output, place_dev_null_means_no_result, .init = redirect_stderr)
{
    int none = -1;
    char *p = place("/dev/null", "/cwd", &none);
    cr_assert_null(p);
    cr_assert_eq(none, 1);
    fflush(stderr);
    cr_assert_stderr_eq_str("scope-likwid: SCOPE_LIKWID_OUTPUT is /dev/null: no result file (the "
                            "calls pass through to LIKWID untimed)\n");
}

Test(output, place_device_or_fifo_refused, .init = redirect_stderr)
{
    char dir[] = "/tmp/sl-place-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    int none = -1;
    char *p = place("/dev/zero", "/cwd", &none);
    cr_assert_str_eq(p, "/cwd/scope-likwid-4711.h5", "a device: the default name in the cwd");
    cr_assert_eq(none, 0);
    free(p);
    p = place(fifo, "/cwd", &none);
    cr_assert_str_eq(p, "/cwd/scope-likwid-4711.h5");
    free(p);
    unlink(fifo);
    rmdir(dir);
    fflush(stderr);
    char want[512];
    snprintf(want, sizeof want,
             "scope-likwid: SCOPE_LIKWID_OUTPUT /dev/zero is a character device: expected a "
             "regular file or a directory; writing /cwd/scope-likwid-4711.h5 instead\n"
             "scope-likwid: SCOPE_LIKWID_OUTPUT %s is a FIFO: expected a regular file or a "
             "directory; writing /cwd/scope-likwid-4711.h5 instead\n", fifo);
    cr_assert_stderr_eq_str(want);
}
