/* The root directory at the first Init, and whether it changed since. */
#include "os.h"

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
