/* os/root.c: from close.c. */
#include "os.h"
#include "diag.h"
#include "fileio.h"
#include "likwid_version.h"
#include "markerfile.h"
#include "name_fit.h"
#include "parse_int.h"
#include "trusted_dir.h"
#include "wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The root directory at the first Init: after a chroot every path the
 * shim took at Init names a file outside the new root. */
static dev_t root_dev;
static ino_t root_ino;

void sl_root_note(void)
{
    struct stat st;
    if (root_ino == 0 && stat("/", &st) == 0) {
        root_dev = st.st_dev;
        root_ino = st.st_ino;
    }
}

int sl_root_changed(void)
{
    struct stat st;
    return root_ino != 0 && stat("/", &st) == 0 &&
           (st.st_dev != root_dev || st.st_ino != root_ino);
}
