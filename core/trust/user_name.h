/* Internal header: not installed. The name of a user as results carry it
 * (%u, /metadata's user). libc only. */
#ifndef SL_USER_NAME_H
#define SL_USER_NAME_H

#include <sys/types.h>

/* The name of uid in the passwd database, the number where it has none;
 * never the environment (USER, LOGNAME: unset under cron, anybody's name
 * when set). The lookup may load the site's NSS modules: the shim does it
 * inside the application only for a %u in SCOPE_LIKWID_OUTPUT, the writer
 * for /metadata otherwise. Newly allocated; NULL on ENOMEM. */
char *sl_user_name(uid_t uid);

#endif
