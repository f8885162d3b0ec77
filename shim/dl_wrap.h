/* Internal header: not installed. The dlopen wrapper: the shim's exported
 * dlopen (x86-64), which hands every call to the real one unchanged and,
 * after a RTLD_DEEPBIND load, has the new objects rebound (rebind.h). */
#ifndef SL_SHIM_DL_WRAP_H
#define SL_SHIM_DL_WRAP_H

/* Whether the wrapper exists on this architecture (the version script
 * exports dlopen only then). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SL_DL_WRAP 1
#else
#define SL_DL_WRAP 0
#endif

/* The wrapper's two halves, called from its assembly entry only.
 * sl_dl_route: 0 to jump on to the real dlopen as if called directly
 * (glibc reads its caller from the return address), 1 for sl_dl_hooked,
 * which calls it and then rebinds. */
int sl_dl_route(const char *file, int mode, const void *caller);
void *sl_dl_hooked(const char *file, int mode);

#endif
