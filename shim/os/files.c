/* The shim's files: the spare directories (TMPDIR, /tmp, /var/tmp), noted
 * once; a small text file read; a file of its own created exclusively and
 * private. */
#include "os.h"
#include "fileio.h"
#include "trusted_dir.h"

#include <fcntl.h>
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

char *sl_read_text(const char *path, size_t max, unsigned flags)
{
    char *buf;
    size_t len;
    if (sl_read_file(path, max, &buf, &len) != 0)
        return NULL;
    if (flags & SL_TEXT_FIRST_ONLY)
        len = strlen(buf);
    while (len > 0 && (buf[len - 1] == '\0' ||
                       ((flags & SL_TEXT_STRIP_NEWLINE) && buf[len - 1] == '\n')))
        len--;
    buf[len] = '\0';
    if (flags & SL_TEXT_NUL_TO_BLANK)
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
    return buf;
}

int sl_at_create_private(const char *path, int flags)
{
    return sl_at_open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, SL_MODE_PRIVATE);
}
