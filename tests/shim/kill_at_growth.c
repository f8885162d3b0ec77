/* The journal's growth, interposed for test_shim_journal_grow: the shim's objects
 * are linked into the test, so its fallocate calls land here (the system
 * call itself, then the test's hook). After the tu_kill_at_growth-th one
 * (0: never) the process is killed outright, the file grown for a new
 * piece that is neither mapped nor recorded. No <fcntl.h>: it names this
 * function otherwise under _FILE_OFFSET_BITS=64. */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

int tu_kill_at_growth;

int fallocate64(int fd, int mode, off_t off, off_t len);

int fallocate64(int fd, int mode, off_t off, off_t len)
{
    int rc = (int)syscall(SYS_fallocate, fd, mode, off, len);
    if (tu_kill_at_growth > 0 && --tu_kill_at_growth == 0)
        raise(SIGKILL);
    return rc;
}
