/* The spare directories (TMPDIR, /tmp, /var/tmp), noted once. */
#include "os.h"
#include "trusted_dir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The directories a file of the process goes to when the result's own
 * directory will not take it: TMPDIR (absolute), then /tmp, each only when
 * another user cannot change what is in it (trusted_dir.h). Looked at
 * once, at the first Init. */
static char *spare[3];
static int spare_noted;

void sl_spare_dirs_note(const char *tmpdir)
{
    if (spare_noted)
        return;
    const char *cand[3] = {tmpdir && tmpdir[0] == '/' ? tmpdir : NULL, "/tmp", "/var/tmp"};
    char *why = malloc(PATH_MAX + 128);
    for (int i = 0; i < 3; i++)
        if (cand[i] && why && sl_dir_trusted(cand[i], geteuid(), why, PATH_MAX + 128) == 0)
            spare[i] = strdup(cand[i]);
    free(why);
    spare_noted = 1;
}

int sl_spare_dirs_noted(void)
{
    return spare_noted;
}

const char *sl_spare_dir_noted(int i)
{
    return i >= 0 && i < 3 ? spare[i] : NULL;
}
