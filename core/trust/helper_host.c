/* The helper host's request (helper_host.h): what `scope-likwid run`
 * checks before it starts anything a connection asks for. */
#include "helper_host.h"

#include <errno.h>
#include <string.h>

int sl_host_nfds(uint32_t fds)
{
    int n = 0;
    for (uint32_t bit = 1; bit <= SL_HOST_FD_MNTNS; bit <<= 1)
        n += (fds & bit) != 0;
    return n;
}

int sl_host_request_check(const sl_host_request *rq)
{
    if (memcmp(rq->magic, SL_HOST_MAGIC, sizeof rq->magic) != 0 ||
        (rq->fds & ~(uint32_t)(2 * SL_HOST_FD_MNTNS - 1)) != 0 ||
        rq->nlimits > SL_HOST_NLIMITS || rq->strings_len == 0 || rq->argc == 0)
        return -EPROTO;
    if (rq->argc > SL_HOST_MAX_ARGS || rq->envc > SL_HOST_MAX_ENV ||
        rq->strings_len > SL_HOST_MAX_STRINGS)
        return -E2BIG;
    return 0;
}

int sl_host_request_strings(const sl_host_request *rq, char *blob, char **path, char **argv,
                            char **envp)
{
    uint32_t want = 1 + rq->argc + rq->envc, got = 0;
    if (rq->strings_len == 0 || blob[rq->strings_len - 1] != '\0')
        return -EPROTO;
    for (uint32_t at = 0; at < rq->strings_len; got++) {
        if (got == want)
            return -EPROTO;     /* more strings than said */
        char *s = blob + at;
        if (got == 0)
            *path = s;
        else if (got <= rq->argc)
            argv[got - 1] = s;
        else
            envp[got - 1 - rq->argc] = s;
        at += (uint32_t)strlen(s) + 1;
    }
    if (got != want)
        return -EPROTO;
    argv[rq->argc] = NULL;
    envp[rq->envc] = NULL;
    return 0;
}

uint64_t sl_host_tag(const sl_mac_key *key, int by_host, const uint8_t *shim_nonce,
                     const uint8_t *host_nonce)
{
    uint8_t msg[8 + 2 * SL_HOST_NONCE];
    memcpy(msg, by_host ? "host tag" : "shim tag", 8);
    memcpy(msg + 8, shim_nonce, SL_HOST_NONCE);
    memcpy(msg + 8 + SL_HOST_NONCE, host_nonce, SL_HOST_NONCE);
    return sl_mac(key, msg, sizeof msg);
}
