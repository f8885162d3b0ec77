/* run's helper host (core/trust/helper_host.h): a child of run that starts the
 * shim's helper processes on the application's behalf. The host accepts
 * connections until run says the application ended (its control pipe
 * closes), then waits for the helpers still running and exits. Each
 * connection gets a process of its own (a "minder"): it checks that the
 * peer is this user's and knows run's key (answering nothing before the
 * first check, proving its own knowledge of the key only after it), reads
 * the request, checks that it comes from the same root and mount
 * namespace, starts the program, and reports its end. */
#include "run_host.h"
#include "helper_host.h"
#include "mac.h"
#include "cli_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long a request may take to arrive, and how long past its own
 * deadline a program may run once the application is gone. */
#define REQUEST_MS 10000
#define GRACE_MS 5000

static void reply(int conn, int32_t kind, int32_t value)
{
    sl_host_reply r = {kind, value};
    ssize_t w = send(conn, &r, sizeof r, MSG_NOSIGNAL);
    (void)w;    /* the shim gone: nothing to tell */
}

/* Reads n bytes by the deadline (and the descriptors of the first piece
 * into fds, up to SL_HOST_MAX_FDS; *nfd how many came). 0 or -1. */
static int read_all(int conn, void *buf, size_t n, int64_t deadline, int *fds, int *nfd)
{
    size_t got = 0;
    while (got < n) {
        int64_t left = deadline - sl_now_ms();
        struct pollfd p = {.fd = conn, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
            if (left > 0 && errno == EINTR)
                continue;
            return -1;
        }
        union {
            char buf[CMSG_SPACE(sizeof(int) * SL_HOST_MAX_FDS)];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {(char *)buf + got, n - got};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
        if (fds) {
            m.msg_control = ctl.buf;
            m.msg_controllen = sizeof ctl.buf;
        }
        ssize_t r = recvmsg(conn, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return -1;
        if (fds) {
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                    int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                    int *in = (int *)(void *)CMSG_DATA(c);
                    for (int i = 0; i < k; i++)
                        if (*nfd < SL_HOST_MAX_FDS)
                            fds[(*nfd)++] = in[i];
                        else
                            close(in[i]);
                }
            fds = NULL;     /* descriptors come with the first piece only */
        }
        got += (size_t)r;
    }
    return 0;
}

static int same_file(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The program, in the minder's child: the shim's descriptors as 0-2 and
 * its directory, umask and limits, every signal at its default. */
static void exec_program(const sl_host_request *rq, const int *fd_of, char *path, char **argv,
                         char **envp, int report)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (rq->umask >= 0)
        umask((mode_t)rq->umask);
    for (uint32_t i = 0; i < rq->nlimits; i++) {
        struct rlimit rl = {(rlim_t)rq->rlim_cur[i], (rlim_t)rq->rlim_max[i]};
        setrlimit((__rlimit_resource_t)i, &rl);   /* one we cannot set stays run's */
    }
    int err = 0;
    if (fd_of[2] >= 0 && fchdir(fd_of[2]) != 0)
        err = errno;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    int want[3] = {null, fd_of[0] >= 0 ? fd_of[0] : null, fd_of[1] >= 0 ? fd_of[1] : null};
    for (int i = 0; i < 3 && !err; i++)
        if (want[i] < 0 || dup2(want[i], i) < 0)
            err = errno ? errno : EBADF;
    if (!err) {
        /* nothing of run's or the minder's but the report pipe (CLOEXEC) */
        if (report > 3)
            syscall(SYS_close_range, 3U, (unsigned)report - 1, 0U);
        syscall(SYS_close_range, (unsigned)report + 1, ~0U, 0U);
        execve(path, argv, envp);
        err = errno;
    }
    ssize_t w = write(report, &err, sizeof err);
    (void)w;
    _exit(127);
}

/* The key run gave the application's processes (SCOPE_LIKWID_RUN_HOST_KEY). */
static sl_mac_key host_key;

/* The peer is this user's and knows the key (helper_host.h): 0 with the
 * tag its request must carry in *want, else -1 (nothing more is said to
 * it: the shim starts its helper itself). */
static int check_peer(int conn, uint64_t *want, int64_t deadline)
{
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != geteuid() ||
        cred.gid != getegid())
        return -1;      /* another user (or group): not a word to it */
    sl_host_hello hello;
    if (read_all(conn, &hello, sizeof hello, deadline, NULL, NULL) != 0 ||
        memcmp(hello.magic, SL_HOST_HELLO_MAGIC, sizeof hello.magic) != 0)
        return -1;
    sl_host_proof answer = {.magic = SL_HOST_PROOF_MAGIC};
    if (sl_mac_random(answer.nonce, sizeof answer.nonce) != 0)
        return -1;
    answer.tag = sl_host_tag(&host_key, 1, hello.nonce, answer.nonce);
    if (send(conn, &answer, sizeof answer, MSG_NOSIGNAL) != (ssize_t)sizeof answer)
        return -1;
    *want = sl_host_tag(&host_key, 0, hello.nonce, answer.nonce);
    return 0;
}

/* One connection, in a process of its own: never returns. */
static void minder(int conn)
{
    int64_t deadline = sl_now_ms() + REQUEST_MS;
    sl_host_request rq;
    int fds[SL_HOST_MAX_FDS], nfd = 0;
    uint64_t want = 0;
    if (check_peer(conn, &want, deadline) != 0)
        _exit(0);
    if (read_all(conn, &rq, sizeof rq, deadline, fds, &nfd) != 0)
        _exit(0);
    if (!sl_mac_equal(rq.proof, want))
        _exit(0);       /* not a process run started: its descriptors go unused */
    int rc = sl_host_request_check(&rq);
    if (rc == 0 && sl_host_nfds(rq.fds) != nfd)
        rc = -EPROTO;
    if (rc != 0) {
        reply(conn, SL_HOST_REFUSED, -rc);
        _exit(0);
    }
    /* The descriptors by role: out, err, cwd, root, mount namespace. */
    int fd_of[SL_HOST_MAX_FDS], k = 0;
    for (int i = 0; i < SL_HOST_MAX_FDS; i++)
        fd_of[i] = rq.fds & (1u << i) ? fds[k++] : -1;
    /* Paths mean the same to the program only in the shim's root and
     * mount namespace (an application may chroot or unshare after Init). */
    if (fd_of[3] < 0 || !same_file(fd_of[3], "/") ||
        (fd_of[4] >= 0 && !same_file(fd_of[4], "/proc/self/ns/mnt"))) {
        reply(conn, SL_HOST_REFUSED, EXDEV);
        _exit(0);
    }
    char *blob = malloc(rq.strings_len);
    char **argv = calloc((size_t)rq.argc + 1, sizeof *argv);
    char **envp = calloc((size_t)rq.envc + 1, sizeof *envp);
    char *path = NULL;
    if (!blob || !argv || !envp) {
        reply(conn, SL_HOST_REFUSED, ENOMEM);
        _exit(0);
    }
    if (read_all(conn, blob, rq.strings_len, deadline, NULL, NULL) != 0)
        _exit(0);
    if ((rc = sl_host_request_strings(&rq, blob, &path, argv, envp)) != 0) {
        reply(conn, SL_HOST_REFUSED, -rc);
        _exit(0);
    }

    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        reply(conn, SL_HOST_REFUSED, errno);
        _exit(0);
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(report[0]);
        exec_program(&rq, fd_of, path, argv, envp, report[1]);
    }
    close(report[1]);
    if (pid < 0) {
        reply(conn, SL_HOST_REFUSED, errno);
        _exit(0);
    }
    for (int i = 0; i < nfd; i++)
        close(fds[i]);
    int exec_err = 0;
    ssize_t r;
    while ((r = read(report[0], &exec_err, sizeof exec_err)) < 0 && errno == EINTR)
        ;
    close(report[0]);
    if (r > 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        reply(conn, SL_HOST_REFUSED, exec_err);     /* the shim tries itself, and says why */
        _exit(0);
    }
    sl_host_reply started = {SL_HOST_STARTED, (int32_t)pid};
    if (send(conn, &started, sizeof started, MSG_NOSIGNAL) != (ssize_t)sizeof started) {
        kill(pid, SIGKILL);     /* nobody to read it: the shim gave up */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        _exit(0);
    }

    /* Until it ends: a kill from the shim. The shim keeps its own deadline
     * (which does not count time its process is stopped); once the shim
     * is gone (killed during Close) the program has the same time again,
     * and a little more, to deliver. */
    int64_t end_by = INT64_MAX;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        if (sl_now_ms() >= end_by)
            kill(pid, SIGKILL);
        struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = conn, .events = POLLIN}};
        /* conn -1 once the shim is gone: poll skips it */
        int wait_ms = pidfd >= 0 ? 1000 : 10;
        if (poll(p, 2, wait_ms) > 0 && p[1].revents) {
            char c;
            ssize_t got = recv(conn, &c, 1, MSG_DONTWAIT);
            if (got == 1 && c == SL_HOST_KILL)
                kill(pid, SIGKILL);
            else if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
                close(conn);    /* the shim went away: the program goes on */
                conn = -1;
                end_by = sl_now_ms() + (int64_t)rq.timeout_ms + GRACE_MS;
            }
        }
    }
    if (conn >= 0)
        reply(conn, SL_HOST_ENDED, status);
    _exit(0);
}

/* The host's loop: never returns. */
static void host_main(int listener, int control)
{
    int running = 0;
    for (;;) {
        pid_t w;
        while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
            running--;
        if (listener < 0 && running <= 0)
            _exit(0);
        struct pollfd p[2] = {{.fd = control, .events = POLLIN},
                              {.fd = listener, .events = POLLIN}};
        if (poll(p, listener >= 0 ? 2 : 1, 100) <= 0)
            continue;
        if (p[0].revents) {
            /* run is done with the application: no new helper */
            close(listener);
            listener = -1;
            close(control);
            control = -1;
            p[0].fd = -1;
            continue;
        }
        if (listener >= 0 && p[1].revents) {
            int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            if (conn < 0)
                continue;
            pid_t m = fork();
            if (m == 0) {
                close(listener);
                if (control >= 0)
                    close(control);
                minder(conn);
            }
            if (m > 0)
                running++;
            close(conn);
        }
    }
}

pid_t sl_run_host_start(int *control, char *name, size_t cap, char *key, size_t key_cap)
{
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd ||
        key_cap <= SL_MAC_HEX || sl_mac_random(host_key.k, sizeof host_key.k) != 0)
        return -1;
    sl_mac_key_hex(&host_key, key);
    char id[2 * sizeof rnd + 1];
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(id + 2 * i, 3, "%02x", rnd[i]);
    int n = snprintf(name, cap, "@scope-likwid-host.%ld.%s", (long)getpid(), id);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (n < 0 || (size_t)n >= cap || (size_t)n > sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path + 1, name + 1, (size_t)n - 1);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n);
    /* nonblocking: a connection gone before accept() never blocks the host */
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int ctl[2] = {-1, -1};
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, len) != 0 ||
        listen(listener, 64) != 0 || pipe2(ctl, O_CLOEXEC) != 0) {
        if (listener >= 0)
            close(listener);
        return -1;
    }
    fflush(NULL);
    pid_t host = fork();
    if (host == 0) {
        close(ctl[1]);
        /* ^C is for the application: the host stays to see its helpers end */
        signal(SIGINT, SIG_IGN);
        signal(SIGQUIT, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        signal(SIGCHLD, SIG_DFL);
        int null = open("/dev/null", O_RDWR);
        for (int i = 0; i < 3 && null >= 0; i++)
            if (null != i)
                dup2(null, i);
        if (null > 2)
            close(null);
        host_main(listener, ctl[0]);
    }
    close(listener);
    close(ctl[0]);
    if (host < 0) {
        close(ctl[1]);
        return -1;
    }
    *control = ctl[1];
    return host;
}

void sl_run_host_end(pid_t host, int control)
{
    close(control);
    while (waitpid(host, NULL, 0) < 0 && errno == EINTR)
        ;
}
