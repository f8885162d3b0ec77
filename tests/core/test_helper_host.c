/* The helper host's request checks (core/trust/helper_host.c): what run accepts
 * from a connection before it starts anything. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "helper_host.h"

static sl_host_request good(uint32_t argc, uint32_t envc, uint32_t len)
{
    sl_host_request rq = {.magic = SL_HOST_MAGIC, .argc = argc, .envc = envc,
                          .strings_len = len, .fds = SL_HOST_FD_OUT | SL_HOST_FD_ROOT,
                          .umask = 022, .nlimits = SL_HOST_NLIMITS};
    return rq;
}

Test(helper_host, fixed_part)
{
    sl_host_request rq = good(2, 1, 10);
    cr_assert_eq(sl_host_request_check(&rq), 0);
    cr_assert_eq(sl_host_nfds(rq.fds), 2);
    cr_assert_eq(sl_host_nfds(31), 5);
    rq.magic[0] = 'X';
    cr_assert_eq(sl_host_request_check(&rq), -EPROTO);
    rq = good(2, 1, 10);
    rq.fds |= 32;                           /* a descriptor we do not know */
    cr_assert_eq(sl_host_request_check(&rq), -EPROTO);
    rq = good(0, 1, 10);                    /* no argv[0] */
    cr_assert_eq(sl_host_request_check(&rq), -EPROTO);
    rq = good(2, 1, 0);
    cr_assert_eq(sl_host_request_check(&rq), -EPROTO);
    rq = good(2, 1, 10);
    rq.nlimits = SL_HOST_NLIMITS + 1;
    cr_assert_eq(sl_host_request_check(&rq), -EPROTO);
    rq = good(SL_HOST_MAX_ARGS + 1, 1, 10);
    cr_assert_eq(sl_host_request_check(&rq), -E2BIG);
    rq = good(1, SL_HOST_MAX_ENV + 1, 10);
    cr_assert_eq(sl_host_request_check(&rq), -E2BIG);
    rq = good(1, 1, SL_HOST_MAX_STRINGS + 1);
    cr_assert_eq(sl_host_request_check(&rq), -E2BIG);
}

Test(helper_host, strings_split)
{
    char blob[] = "/bin/w\0w\0in\0A=1\0B=\0";
    sl_host_request rq = good(2, 2, sizeof blob - 1);
    char *path = NULL, *argv[3], *envp[3];
    cr_assert_eq(sl_host_request_strings(&rq, blob, &path, argv, envp), 0);
    cr_assert_str_eq(path, "/bin/w");
    cr_assert_str_eq(argv[0], "w");
    cr_assert_str_eq(argv[1], "in");
    cr_assert_null(argv[2]);
    cr_assert_str_eq(envp[0], "A=1");
    cr_assert_str_eq(envp[1], "B=");
    cr_assert_null(envp[2]);
}

Test(helper_host, strings_refused)
{
    char *path, *argv[8], *envp[8];
    /* fewer strings than said */
    char few[] = "/bin/w\0w\0";
    sl_host_request rq = good(2, 1, sizeof few - 1);
    cr_assert_eq(sl_host_request_strings(&rq, few, &path, argv, envp), -EPROTO);
    /* more than said: never past the slots given */
    char many[] = "/bin/w\0w\0a\0b\0c\0d\0";
    rq = good(1, 1, sizeof many - 1);
    cr_assert_eq(sl_host_request_strings(&rq, many, &path, argv, envp), -EPROTO);
    /* the last one not terminated: never read past the blob */
    char open_end[] = "/bin/w\0w\0A=1";
    rq = good(1, 1, sizeof open_end - 1);
    cr_assert_eq(sl_host_request_strings(&rq, open_end, &path, argv, envp), -EPROTO);
    /* an empty path, an empty argv[0]: strings still, execve says no */
    char empty[] = "\0\0";
    rq = good(1, 0, sizeof empty - 1);
    cr_assert_eq(sl_host_request_strings(&rq, empty, &path, argv, envp), 0);
    cr_assert_str_eq(path, "");
}
