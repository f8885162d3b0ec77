/* run's helper host (run_host.c, core/trust/helper_host.h). */
#ifndef SL_RUN_HOST_H
#define SL_RUN_HOST_H

#include <stddef.h>
#include <sys/types.h>

/* Starts the host: its pid, its control descriptor in *control, its
 * address ("@NAME", for SCOPE_LIKWID_RUN_HOST) in name and its key (hex,
 * for SCOPE_LIKWID_RUN_HOST_KEY) in key (key_cap > SL_MAC_HEX); -1 when it
 * cannot be started (the shim then starts its helpers itself). */
pid_t sl_run_host_start(int *control, char *name, size_t cap, char *key, size_t key_cap);
/* No new helper after this; waits until the running ones have ended
 * (each within its deadline). */
void sl_run_host_end(pid_t host, int control);

#endif
