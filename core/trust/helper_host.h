/* The helper host: `scope-likwid run` starts the shim's helper processes
 * (collector, writer) as its own children, so that they are never the
 * application's (docs/SHIM.md, "Helper processes"). One connection per
 * helper over a Unix stream socket in the abstract namespace, named in
 * SCOPE_LIKWID_RUN_HOST ("@NAME"; abstract names are listed for everyone in
 * /proc/net/unix, and one is free for anybody to take once run has ended).
 *
 * So each side checks the other before it sends anything of its own
 * (docs/SECURITY.md): the peer's user (SO_PEERCRED), and that the peer
 * knows the key run put in SCOPE_LIKWID_RUN_HOST_KEY (the environment of
 * the processes run started: theirs and root's to read, nobody else's).
 * The shim sends an sl_host_hello (a fresh nonce, nothing else); the host,
 * having checked the shim's user, answers an sl_host_proof (its own nonce
 * and the tag sl_host_tag(key, 1, ...) of both); the shim, having checked
 * the host's user and tag, sends one sl_host_request carrying its own tag
 * sl_host_tag(key, 0, ...) and its descriptors (SCM_RIGHTS, in
 * the order of the SL_HOST_FD_ bits), then the request's strings: the
 * program's path, argv and envp, each NUL-terminated. The host answers
 * SL_HOST_STARTED once the program runs (or SL_HOST_REFUSED: the shim then
 * starts it itself), and SL_HOST_ENDED with its wait status once it ended.
 * The byte SL_HOST_KILL from the shim kills it. A shim that goes away
 * (killed during Close) leaves the program running to its deadline. */
#ifndef SL_HELPER_HOST_H
#define SL_HELPER_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "mac.h"

#define SL_HOST_ENV "SCOPE_LIKWID_RUN_HOST"
#define SL_HOST_KEY_ENV "SCOPE_LIKWID_RUN_HOST_KEY"
#define SL_HOST_MAGIC "SLHOST2"             /* with its NUL: 8 bytes */
#define SL_HOST_HELLO_MAGIC "SLHELO2"
#define SL_HOST_PROOF_MAGIC "SLPROF2"
#define SL_HOST_NONCE 16
#define SL_HOST_MAX_ARGS 4096u
#define SL_HOST_MAX_ENV 65536u
#define SL_HOST_MAX_STRINGS (8u << 20)     /* above ARG_MAX: execve refuses more */
#define SL_HOST_NLIMITS 16                  /* RLIMIT_CPU .. RLIMIT_RTTIME */
#define SL_HOST_MAX_FDS 5
#define SL_HOST_KILL 'K'

/* Which descriptors come with the request, in this order. */
enum {
    SL_HOST_FD_OUT = 1,         /* the program's stdout (else /dev/null) */
    SL_HOST_FD_ERR = 2,         /* its stderr (else /dev/null) */
    SL_HOST_FD_CWD = 4,         /* the directory it runs in */
    SL_HOST_FD_ROOT = 8,        /* the shim's "/": the host refuses another root */
    SL_HOST_FD_MNTNS = 16,      /* the shim's mount namespace: likewise */
};

typedef struct sl_host_request {
    char magic[8];
    uint32_t argc, envc;
    uint32_t strings_len;       /* bytes of strings after the request */
    uint32_t fds;               /* SL_HOST_FD_ bits */
    int32_t umask;              /* -1: unknown, the host's own */
    uint32_t timeout_ms;        /* the shim's deadline for the program */
    uint32_t nlimits;           /* resource limits set in the program */
    uint32_t pad;
    uint64_t proof;             /* sl_host_tag(key, 0, hello, host's proof) */
    uint64_t rlim_cur[SL_HOST_NLIMITS], rlim_max[SL_HOST_NLIMITS];
} sl_host_request;

typedef struct sl_host_hello {
    char magic[8];
    uint8_t nonce[SL_HOST_NONCE];
} sl_host_hello;

typedef struct sl_host_proof {
    char magic[8];
    uint8_t nonce[SL_HOST_NONCE];
    uint64_t tag;               /* sl_host_tag(key, 1, hello's nonce, this nonce) */
} sl_host_proof;

/* The tag one side gives (by_host: the host's, else the shim's) over both
 * nonces: each side's tag is of its own kind, so neither can be made to
 * answer for the other. */
uint64_t sl_host_tag(const sl_mac_key *key, int by_host, const uint8_t *shim_nonce,
                     const uint8_t *host_nonce);

enum { SL_HOST_STARTED = 1, SL_HOST_REFUSED = 2, SL_HOST_ENDED = 3 };

typedef struct sl_host_reply {
    int32_t kind;
    int32_t value;              /* STARTED: pid; REFUSED: errno; ENDED: wait status */
} sl_host_reply;

/* How many descriptors the fds bits name. */
int sl_host_nfds(uint32_t fds);

/* Checks a request's fixed part: 0, or -EPROTO (not ours, unknown bits)
 * or -E2BIG (over the limits above). */
int sl_host_request_check(const sl_host_request *rq);

/* Splits the strings of a checked request (blob: strings_len bytes) into
 * path, argv (argc + 1 slots) and envp (envc + 1 slots), NULL-terminated,
 * pointing into blob. 0, or -EPROTO when blob does not hold exactly
 * 1 + argc + envc NUL-terminated strings. */
int sl_host_request_strings(const sl_host_request *rq, char *blob, char **path, char **argv,
                            char **envp);

#endif
