/* Whether a journal's process still runs (see journal.h): recover must never
 * touch the journal of a live process. A pid alone can be reused: the start
 * time tells; and it names a process only on its host, boot and pid
 * namespace. */
#include "journal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

uint64_t sl_jrn_start_ticks(int64_t pid)
{
    char path[64], *buf;
    size_t len;
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    if (sl_read_file(path, 1 << 16, &buf, &len) != 0)
        return 0;
    /* After the command (in parentheses, may hold blanks): p at the blank
     * before field 3; 19 blanks on, the one before field 22 (starttime). */
    char *p = strrchr(buf, ')');
    uint64_t ticks = 0;
    if (p) {
        p++;
        for (int field = 3; field < 22 && p; field++)
            p = strchr(p + 1, ' ');
        if (p)
            ticks = strtoull(p + 1, NULL, 10);
    }
    free(buf);
    return ticks;
}

void sl_jrn_boot_id(char *buf, size_t cap)
{
    char *b;
    size_t len;
    buf[0] = '\0';
    if (sl_read_file("/proc/sys/kernel/random/boot_id", 4096, &b, &len) != 0)
        return;
    while (len > 0 && (b[len - 1] == '\n' || b[len - 1] == '\0'))
        len--;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, b, len);
    buf[len] = '\0';
    free(b);
}

uint64_t sl_jrn_pid_ns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* A journal written elsewhere holds a process that may still run there:
 * another host (a job's other node sharing the directory), another boot
 * (which only the host's own reboot would end, and host names repeat
 * across containers and clusters) or another pid namespace (a container
 * on this kernel: same boot id, its pids not ours). Only the same boot,
 * host name and namespace make its pid meaningful here. */
sl_jrn_where sl_jrn_locate(const sl_jrn_info *info, char *why, size_t cap)
{
    char boot[48], host[256] = "";
    sl_jrn_boot_id(boot, sizeof boot);
    gethostname(host, sizeof host - 1);
    uint64_t ns = sl_jrn_pid_ns();
    const char *h = info->hostname[0] ? info->hostname : "an unknown host";
    if (info->hostname[0] && strcmp(host, info->hostname) != 0) {
        snprintf(why, cap, "written on host %s, not this one (%s)", h, host);
        return SL_JRN_OTHER_HOST;
    }
    if (!boot[0] || strcmp(boot, info->boot_id) != 0) {
        snprintf(why, cap, "written in another boot of host %s (boot id %.36s, this one %.36s)",
                 h, info->boot_id[0] ? info->boot_id : "unknown", boot[0] ? boot : "unknown");
        return SL_JRN_OTHER_BOOT;
    }
    if (info->pid_ns && ns && info->pid_ns != ns) {
        snprintf(why, cap, "written in another pid namespace of host %s (a container)", h);
        return SL_JRN_OTHER_PIDNS;
    }
    snprintf(why, cap, "written on this host");
    return SL_JRN_HERE;
}

int sl_jrn_writer_alive(const sl_jrn_info *info)
{
    char why[8];
    if (sl_jrn_locate(info, why, sizeof why) != SL_JRN_HERE)
        return 1;       /* its pid says nothing here: it may run */
    uint64_t t = sl_jrn_start_ticks(info->pid);
    return t != 0 && t == info->start_ticks;
}

char sl_proc_state(int64_t pid)
{
    char path[48], buf[512];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');     /* the name may hold anything */
    return paren && paren[1] == ' ' ? paren[2] : 0;
}
