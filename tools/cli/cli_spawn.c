/* A program started with stdout and stderr into one pipe (cli_spawn.h):
 * run's probes of likwid-perfctr, recover's questions to Slurm; its
 * output read back. */
#include "cli_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int sl_spawn_piped(const char *exe, int path_search, char *const argv[], int own_group,
                   pid_t *pid, int *out)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) < 0)
        return -errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (own_group) {
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    }
    int rc = path_search ? posix_spawnp(pid, exe, &fa, &attr, argv, environ)
                         : posix_spawn(pid, exe, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        return -rc;
    }
    *out = fd[0];
    return 0;
}

int sl_read_kept(int fd, char *buf, size_t cap, size_t *n)
{
    char sink[4096];
    ssize_t r = buf && *n < cap ? read(fd, buf + *n, cap - *n) : read(fd, sink, sizeof sink);
    if (r < 0 && errno == EINTR)
        return 1;
    if (r <= 0)
        return 0;
    if (buf && *n < cap)
        *n += (size_t)r;
    return 1;
}

int64_t sl_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}
