/* A user's name from the passwd database (see user_name.h). */
#include "user_name.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

char *sl_user_name(uid_t uid)
{
    size_t cap = 1024;
    char *buf = malloc(cap), *name = NULL;
    struct passwd pw, *found = NULL;
    while (buf && getpwuid_r(uid, &pw, buf, cap, &found) == ERANGE && cap < (1u << 20)) {
        char *b = realloc(buf, cap *= 2);
        if (!b)
            break;
        buf = b;
    }
    if (buf && found && pw.pw_name[0])
        name = strdup(pw.pw_name);
    free(buf);
    if (!name && asprintf(&name, "%u", (unsigned)uid) < 0)
        name = NULL;
    return name;
}
