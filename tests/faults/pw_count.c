/* Preloaded with the shim: every passwd lookup by uid (getpwuid_r,
 * getpwuid: what loads the site's NSS modules) appends the name of the
 * program that made it, one line each, to $PW_COUNT_OUT, then does the
 * real lookup. harmproc.sh's passwd case counts the application's lines. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(void)
{
    const char *out = getenv("PW_COUNT_OUT");
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!out || n <= 0)
        return;
    exe[n++] = '\n';
    int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ssize_t w = write(fd, exe, (size_t)n);
        (void)w;
        close(fd);
    }
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len, struct passwd **res)
{
    note();
    int (*real)(uid_t, struct passwd *, char *, size_t, struct passwd **);
    void *p = dlsym(RTLD_NEXT, "getpwuid_r");
    memcpy(&real, &p, sizeof p);
    return real(uid, pw, buf, len, res);
}

struct passwd *getpwuid(uid_t uid)
{
    note();
    struct passwd *(*real)(uid_t);
    void *p = dlsym(RTLD_NEXT, "getpwuid");
    memcpy(&real, &p, sizeof p);
    return real(uid);
}
