/* The shim's one constructor and one destructor: the steps taken when the
 * library is loaded and unloaded, by name and in their order (glibc runs a
 * library's constructors in link order, so one list here is the order). */
#include "face.h"

#include <errno.h>

__attribute__((constructor)) static void sl_at_load(void)
{
    sl_real_libc_find();         /* the real exec family */
    /* A copy loaded after another one stays out: pass-through from the
     * start (the first copy never calls it; a caller that reaches it
     * directly gets LIKWID). */
    if (sl_other_copy_before())
        atomic_store(&sl_mode, SL_MODE_PASS);
    /* Which file stderr is: one fstat, nothing else (a process that never
     * calls Init is left alone). */
    int saved = errno;
    sl_log_take_stderr();
    errno = saved;
    sl_spawn_at_load();
    sl_user_change_resolve();   /* the real setuid family */
}

__attribute__((destructor)) static void sl_at_unload(void)
{
    sl_rebind_exit_note();      /* one line for an object that went past the shim */
    sl_end_at_unload();         /* the late exit hook: the end without Close */
}
