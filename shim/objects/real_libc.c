/* libc's functions behind the shim's own exported ones: the exec family
 * and dlopen, found once. The shim's own calls (the keeper's exec, the
 * look-ups of LIKWID's library) go to them directly, never through the
 * shim's wrappers. */
#include "objects.h"

#include <string.h>

static sl_libc_exec real;

/* When the shim is loaded, and again at the first Init (a library's
 * constructor may call Init before ours ran): not in a child of a
 * threaded process, where dlsym could wait for a lock nobody holds. */
void sl_real_libc_find(void)
{
    if (real.execve)
        return;
    void *p;
#define X(name, type) \
    p = dlsym(RTLD_NEXT, #name); \
    memcpy(&real.name, &p, sizeof p);
    SL_EXEC_FUNCS(X)
#undef X
}

const sl_libc_exec *sl_real_exec(void)
{
    return &real;
}

#if SL_DL_WRAP
/* Found on first use (RTLD_NEXT: after the shim in the global scope); the
 * exported dlopen's assembly entry jumps through it (face/dlopen.c). */
__attribute__((used)) sl_dlopen_fn sl_dl_real;

sl_dlopen_fn sl_real_dlopen(void)
{
    sl_dlopen_fn f = __atomic_load_n(&sl_dl_real, __ATOMIC_ACQUIRE);
    if (!f) {
        void *p = dlsym(RTLD_NEXT, "dlopen");
        memcpy(&f, &p, sizeof f);
        __atomic_store_n(&sl_dl_real, f, __ATOMIC_RELEASE);     /* every thread finds the same */
    }
    return f;
}
#else
sl_dlopen_fn sl_real_dlopen(void)
{
    return dlopen;      /* not wrapped here */
}
#endif
