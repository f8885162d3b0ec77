/* jrn_edit JOURNAL FIELD VALUE...: edits a journal's header as a user who
 * planted it would (tests/security, the planted-journal case): output
 * PATH, rescue PATH, state N, batch FIRST (the batch's first cycle). */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"

static int put(int fd, const void *p, size_t n, size_t off)
{
    return pwrite(fd, p, n, (off_t)off) == (ssize_t)n ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc % 2)
        return 2;
    int fd = open(argv[1], O_WRONLY | O_NOFOLLOW);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    int rc = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *f = argv[i], *v = argv[i + 1];
        char text[4096] = {0};
        if (!strcmp(f, "output") || !strcmp(f, "rescue")) {
            size_t cap = !strcmp(f, "output") ? sizeof ((sl_jrn_header *)0)->output
                                              : sizeof ((sl_jrn_header *)0)->rescue;
            snprintf(text, cap, "%s", v);
            rc |= put(fd, text, cap, !strcmp(f, "output") ? offsetof(sl_jrn_header, output)
                                                          : offsetof(sl_jrn_header, rescue));
        } else if (!strcmp(f, "state")) {
            int32_t s = atoi(v);
            rc |= put(fd, &s, sizeof s, offsetof(sl_jrn_header, state));
        } else if (!strcmp(f, "batch")) {
            int64_t b = atoll(v);
            rc |= put(fd, &b, sizeof b, offsetof(sl_jrn_header, batch_first));
        } else {
            rc = 2;
        }
    }
    close(fd);
    return rc;
}
