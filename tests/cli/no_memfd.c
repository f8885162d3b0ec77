/* Preloaded into scope-likwid by sandbox.sh: memfd_create fails with
 * ENOSYS (as on a kernel without it), so the sandbox cannot isolate the
 * reading and the tool must do the work itself. */
#include <errno.h>
#include <sys/mman.h>

int memfd_create(const char *name, unsigned int flags)
{
    (void)name;
    (void)flags;
    errno = ENOSYS;
    return -1;
}
