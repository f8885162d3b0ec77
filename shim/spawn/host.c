/* Helpers started by `scope-likwid run`'s helper host (helper_host.h):
 * a helper that is run's child is never the application's, so the
 * application's getrusage(RUSAGE_CHILDREN) and a subreaper above it never
 * see it. Taken when SCOPE_LIKWID_RUN_HOST was set at Init and the host
 * accepts; otherwise keeper.c starts the helper through its keeper.
 * Everything here is async-signal-safe: the signal handler starts the
 * writer this way too. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The host's address and key as they were at Init; no key, no host. */
static struct sockaddr_un host_addr;
static socklen_t host_addr_len;
static sl_mac_key host_key;
static uid_t uid_at_init;       /* a process that changed its user since: run's is not ours */

void sl_host_take(void)
{
    const char *v, *k;
    sl_env_run_host(&v, &k);
    host_addr_len = 0;
    size_t n = v ? strlen(v) : 0;
    /* "@NAME": NAME in the abstract namespace (no file to leave behind,
     * none to reach through a chroot) */
    if (n < 2 || v[0] != '@' || n > sizeof host_addr.sun_path || !k ||
        sl_mac_key_parse(k, &host_key) != 0)
        return;
    uid_at_init = geteuid();
    memset(&host_addr, 0, sizeof host_addr);
    host_addr.sun_family = AF_UNIX;
    memcpy(host_addr.sun_path + 1, v + 1, n - 1);
    host_addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

int sl_host_configured(void)
{
    return host_addr_len != 0;
}

/* A host that fails its check is never asked again: one line says so
 * (async-signal-safe: no stdio). */
static void distrust(const char *why)
{
    static const char *const part[] = {"scope-likwid: run's helper host ", SL_HOST_ENV "=@",
                                       " failed its check (", "): the shim starts its helpers "
                                       "itself\n"};
    char line[512];
    size_t n = 0;
    const size_t name_len = host_addr_len - offsetof(struct sockaddr_un, sun_path) - 1;
    for (int i = 0; i < 4; i++) {
        const char *p = part[i];
        size_t len = strlen(p);
        if (n + len < sizeof line) {
            memcpy(line + n, p, len);
            n += len;
        }
        const char *add = i == 1 ? host_addr.sun_path + 1 : i == 2 ? why : NULL;
        size_t add_len = i == 1 ? name_len : add ? strlen(add) : 0;
        if (add && n + add_len < sizeof line) {
            memcpy(line + n, add, add_len);
            n += add_len;
        }
    }
    host_addr_len = 0;
    sl_log_line_raw(line, n);
}

/* The start's own deadline: the host answers as soon as the program runs. */
#define START_MS 5000

/* Waits until fd is ready for events, at most until the deadline: 1 ready
 * (or hung up), 0 timed out, -errno. */
static int ready(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - sl_clock_ns(CLOCK_MONOTONIC) / 1000000;
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)left);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -errno;
    }
}

/* Sends the iovecs whole (MSG_NOSIGNAL: a host gone never raises SIGPIPE). */
static int send_all(int fd, struct iovec *iov, size_t n, int64_t deadline)
{
    while (n > 0) {
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = n};
        ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                return -errno;
            int r = ready(fd, POLLOUT, deadline);
            if (r <= 0)
                return r < 0 ? r : -ETIMEDOUT;
            continue;
        }
        size_t done = (size_t)w;
        while (n > 0 && done >= iov->iov_len) {
            done -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + done;
            iov->iov_len -= done;
        }
    }
    return 0;
}

/* The strings of a NULL-terminated list, 64 at a time. */
static int send_strings(int fd, char *const *list, int64_t deadline)
{
    struct iovec iov[64];
    size_t n = 0;
    for (size_t i = 0;; i++) {
        if (list[i])
            iov[n++] = (struct iovec){list[i], strlen(list[i]) + 1};
        if ((!list[i] || n == 64) && n > 0) {
            int rc = send_all(fd, iov, n, deadline);
            if (rc < 0)
                return rc;
            n = 0;
        }
        if (!list[i])
            return 0;
    }
}

static uint32_t count(char *const *list, uint64_t *bytes)
{
    uint32_t n = 0;
    for (; list[n]; n++)
        *bytes += strlen(list[n]) + 1;
    return n;
}

/* The reply, whole: 1, 0 not yet (block 0), -errno (EPIPE: the host
 * closed the connection). The socket is nonblocking: a blocking wait
 * is a poll. */
static int take_reply(int fd, sl_host_reply *r, int block)
{
    for (;;) {
        ssize_t n = recv(fd, r, sizeof *r, MSG_PEEK | MSG_DONTWAIT);
        if (n == (ssize_t)sizeof *r) {
            while (recv(fd, r, sizeof *r, MSG_DONTWAIT) < 0 && errno == EINTR)
                ;
            return 1;
        }
        if (n == 0)
            return -EPIPE;
        if (n < 0 && errno != EINTR && errno != EAGAIN)
            return -errno;
        if (!block)
            return 0;
        if (n > 0) {    /* half a reply: the rest is on its way */
            struct timespec nap = {0, 1000000};
            nanosleep(&nap, NULL);
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return -errno;
    }
}

/* n bytes whole by the deadline: 0, -ETIMEDOUT, -EPIPE (closed), -errno. */
static int recv_all(int fd, void *buf, size_t n, int64_t deadline)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0)
            return -EPIPE;
        if (errno != EINTR && errno != EAGAIN)
            return -errno;
        int ok = ready(fd, POLLIN, deadline);
        if (ok <= 0)
            return ok < 0 ? ok : -ETIMEDOUT;
    }
    return 0;
}

/* Before anything of ours goes to the host: its listener is this user's,
 * and it knows run's key (helper_host.h). 0 with *proof (the tag of ours
 * to send), 1: not a host to use (said once), -EPIPE: it hung up (it
 * refused us: started here, nothing said). */
static int check_host(int s, uint64_t *proof, int64_t deadline)
{
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0)
        return 1;
    if (cred.uid != geteuid()) {
        /* run's own, of the user this process was at Init (a service that
         * dropped its privileges): not a host for it, nothing to say */
        if (cred.uid == uid_at_init)
            return 1;
        distrust("its listener belongs to another user");
        return 1;
    }
    sl_host_hello hello = {.magic = SL_HOST_HELLO_MAGIC};
    sl_host_proof answer;
    if (sl_mac_random(hello.nonce, sizeof hello.nonce) != 0)
        return 1;   /* no nonce to ask with: the keeper */
    struct iovec hv = {&hello, sizeof hello};
    int rc = send_all(s, &hv, 1, deadline);
    if (rc == 0)
        rc = recv_all(s, &answer, sizeof answer, deadline);
    if (rc == -EPIPE || rc == -ECONNRESET)
        return -EPIPE;
    if (rc != 0) {
        distrust(rc == -ETIMEDOUT ? "it did not answer" : "its answer could not be read");
        return 1;
    }
    if (memcmp(answer.magic, SL_HOST_PROOF_MAGIC, sizeof answer.magic) != 0 ||
        !sl_mac_equal(answer.tag, sl_host_tag(&host_key, 1, hello.nonce, answer.nonce))) {
        distrust("it did not prove it is the run that started this process");
        return 1;
    }
    *proof = sl_host_tag(&host_key, 0, hello.nonce, answer.nonce);
    return 0;
}

static void close_fds(int *fd, int n)
{
    for (int i = 0; i < n; i++)
        if (fd[i] >= 0)
            close(fd[i]);
}

/* A connection to the host, above fd 2; -1: no host (gone, another node
 * or network namespace, backlog full). */
static int host_connect(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s >= 0 && s <= 2) {    /* never on 0-2: the application may have closed them */
        int moved = fcntl(s, F_DUPFD_CLOEXEC, 3);
        close(s);
        s = moved;
    }
    if (s < 0 || connect(s, (struct sockaddr *)&host_addr, host_addr_len) != 0) {
        if (s >= 0)
            close(s);
        return -1;
    }
    return s;
}

/* The request's head: umask, deadline, limits, counts; -1 when the host
 * would refuse it (too large). */
static int host_request(sl_host_request *rq, uint64_t proof, const char *path,
                        char *const argv[], char *const envp[], double timeout_s)
{
    *rq = (sl_host_request){.magic = SL_HOST_MAGIC, .umask = (int32_t)sl_proc_umask(),
                            .nlimits = SL_HOST_NLIMITS, .proof = proof};
    double ms = timeout_s * 1000.0;
    rq->timeout_ms = ms <= 0 ? 0 : ms >= 4e9 ? 4000000000u : (uint32_t)ms;
    for (int i = 0; i < SL_HOST_NLIMITS; i++) {
        struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
        getrlimit((__rlimit_resource_t)i, &rl);
        rq->rlim_cur[i] = rl.rlim_cur;
        rq->rlim_max[i] = rl.rlim_max;
    }
    uint64_t bytes = strlen(path) + 1;
    rq->argc = count(argv, &bytes);
    rq->envc = count(envp, &bytes);
    if (bytes > SL_HOST_MAX_STRINGS)
        return -1;
    rq->strings_len = (uint32_t)bytes;
    return 0;
}

/* The head with the descriptors (SCM_RIGHTS: the two outputs, the working
 * directory, the root, the mount namespace), then path, argv and envp. */
static int host_send(int s, sl_host_request *rq, const char *path, char *const argv[],
                     char *const envp[], int out_fd, int err_fd, int64_t deadline)
{
    /* The root the helper's paths are of: Init's, held (os/anchor.c), after a
     * chroot; the host runs it there as it runs outside any new root. */
    int old_root = sl_anchor_old_root();
    int own[3] = {open(".", O_PATH | O_DIRECTORY | O_CLOEXEC),
                  old_root >= 0 ? fcntl(old_root, F_DUPFD_CLOEXEC, 3)
                                : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC),
                  open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)};
    int given[SL_HOST_MAX_FDS], n = 0;
    const int candidates[SL_HOST_MAX_FDS] = {out_fd, err_fd, own[0], own[1], own[2]};
    for (int i = 0; i < SL_HOST_MAX_FDS; i++)
        if (candidates[i] >= 0) {
            rq->fds |= 1u << i;
            given[n++] = candidates[i];
        }
    union {
        char buf[CMSG_SPACE(sizeof(int) * SL_HOST_MAX_FDS)];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec head = {rq, sizeof *rq};
    struct msghdr m = {.msg_iov = &head, .msg_iovlen = 1, .msg_control = ctl.buf,
                       .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
    memcpy(CMSG_DATA(cm), given, sizeof(int) * (size_t)n);

    ssize_t w;
    do
        w = sendmsg(s, &m, MSG_NOSIGNAL);   /* the socket is empty: the head goes whole */
    while (w < 0 && errno == EINTR);
    close_fds(own, 3);
    int rc = w == (ssize_t)sizeof *rq ? 0 : -EPIPE;
    if (rc == 0) {
        struct iovec p = {(void *)path, strlen(path) + 1};
        rc = send_all(s, &p, 1, deadline);
    }
    if (rc == 0)
        rc = send_strings(s, argv, deadline);
    if (rc == 0)
        rc = send_strings(s, envp, deadline);
    return rc;
}

int sl_host_child_start(sl_child *c, const char *path, char *const argv[], char *const envp[],
                        int out_fd, int err_fd, double timeout_s)
{
    c->host = -1;
    if (host_addr_len == 0)
        return 0;
    int saved = errno;
    int s = host_connect();
    if (s < 0) {
        errno = saved;
        return 0;
    }
    int64_t deadline = sl_clock_ns(CLOCK_MONOTONIC) / 1000000 + START_MS;
    uint64_t proof = 0;
    sl_host_request rq;
    if (check_host(s, &proof, deadline) != 0 ||         /* the keeper starts it */
        host_request(&rq, proof, path, argv, envp, timeout_s) != 0) {
        close(s);
        errno = saved;
        return 0;
    }
    int rc = host_send(s, &rq, path, argv, envp, out_fd, err_fd, deadline);
    sl_host_reply r = {0, 0};
    if (rc == 0) {
        int got = ready(s, POLLIN, deadline);
        rc = got < 0 ? got : got == 0 ? -ETIMEDOUT : take_reply(s, &r, 1);
    }
    if (rc == 1 && r.kind == SL_HOST_STARTED) {
        c->host = s;
        errno = saved;
        return 1;
    }
    close(s);
    errno = saved;
    /* Refused (another user, root or mount namespace; the request too
     * large), or the host went away before answering: started here
     * instead. No answer in time: the host may have started it, so it is
     * not started twice. */
    if (rc == -ETIMEDOUT)
        return -ETIMEDOUT;
    return 0;
}

int sl_host_child_poll(sl_child *c, int *status, int block)
{
    int saved = errno;
    sl_host_reply r;
    int rc;
    for (;;) {
        rc = take_reply(c->host, &r, block);
        if (rc != 1 || r.kind == SL_HOST_ENDED)
            break;
    }
    errno = saved;
    if (rc == 0)
        return 0;
    close(c->host);
    c->host = -1;
    if (rc < 0)
        return -ECHILD;     /* the host is gone: the status is not known */
    *status = r.value;
    return 1;
}

void sl_host_child_kill(sl_child *c)
{
    int saved = errno;
    char k = SL_HOST_KILL;
    ssize_t w = send(c->host, &k, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;    /* the host gone: its program ends with its deadline */
    errno = saved;
}

int sl_host_child_ended(const sl_child *c)
{
    sl_host_reply r;
    int saved = errno;
    ssize_t n = recv(c->host, &r, sizeof r, MSG_PEEK | MSG_DONTWAIT);
    int e = errno;
    errno = saved;
    return n >= 0 || (e != EAGAIN && e != EINTR);
}
