/* The dlopen wrapper (dl_wrap.h). glibc's dlopen looks at its caller (the
 * return address): a name without '/' is searched along the caller's
 * RPATH and RUNPATH, $ORIGIN means the caller's directory, the new object
 * joins the caller's namespace. A wrapper that calls dlopen itself would
 * be that caller. So the entry point, written in assembly, asks
 * sl_dl_route and then jumps (not calls) into the real dlopen: the real one
 * sees the application's return address and returns straight to it. Only
 * a RTLD_DEEPBIND load whose result cannot depend on its caller (a path; a
 * bare name when the caller's search list equals the shim's) is made by
 * sl_dl_hooked, which rebinds the objects it brought in. Everything else
 * (every load without RTLD_DEEPBIND) is the real dlopen's alone. */

#include "face.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if SL_DL_WRAP

/* The search list the loader would use for a name without '/' loaded by
 * map (its RPATH, LD_LIBRARY_PATH, its RUNPATH, the system's); malloc'd. */
static Dl_serinfo *search_list(void *map)
{
    Dl_serinfo size;
    if (dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0)
        return NULL;
    Dl_serinfo *si = malloc(size.dls_size);
    if (!si)
        return NULL;
    si->dls_size = size.dls_size;
    si->dls_cnt = size.dls_cnt;
    if (dlinfo(map, RTLD_DI_SERINFO, si) != 0) {
        free(si);
        return NULL;
    }
    return si;
}

/* Whether a bare name loaded by the object at caller is searched as when
 * the shim loads it. */
static int same_search(const void *caller)
{
    static const char here = 0;
    Dl_info info;
    void *theirs = NULL, *ours = NULL;
    if (!dladdr1(caller, &info, &theirs, RTLD_DL_LINKMAP) || !theirs ||
        !dladdr1(&here, &info, &ours, RTLD_DL_LINKMAP) || !ours)
        return 0;
    if (theirs == ours)
        return 1;
    Dl_serinfo *a = search_list(theirs), *b = search_list(ours);
    int same = a && b && a->dls_cnt == b->dls_cnt;
    for (unsigned i = 0; same && i < a->dls_cnt; i++)
        same = strcmp(a->dls_serpath[i].dls_name, b->dls_serpath[i].dls_name) == 0;
    free(a);
    free(b);
    return same;
}

__attribute__((used)) int sl_dl_route(const char *file, int mode, const void *caller)
{
    int saved = errno;
    int hooked = !sl_real_dlopen();    /* none: sl_dl_hooked says so */
    if (!hooked && (mode & RTLD_DEEPBIND) && file && !strchr(file, '$') &&
        (strchr(file, '/') || same_search(caller)))
        hooked = sl_rebind_wanted();
    errno = saved;
    return hooked;
}

__attribute__((used)) void *sl_dl_hooked(const char *file, int mode)
{
    sl_dlopen_fn real = sl_real_dlopen();
    if (!real) {
        errno = ENOSYS;
        return NULL;
    }
    const void *last = sl_rebind_last_loaded();
    void *handle = real(file, mode);
    if (handle)
        sl_rebind_after_load(handle, last);
    return handle;
}

/* dlopen(file, mode): the arguments kept across sl_dl_route, the caller's
 * return address as its third; then a jump, never a call, to the real
 * dlopen or to sl_dl_hooked. */
__asm__(".pushsection .text\n"
        ".globl dlopen\n"
        ".type dlopen, @function\n"
        ".p2align 4\n"
        "dlopen:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "movq 24(%rsp), %rdx\n"
        "call sl_dl_route\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "testl %eax, %eax\n"
        "jnz 1f\n"
        "jmp *sl_dl_real(%rip)\n"
        "1:\n"
        "jmp sl_dl_hooked\n"
        ".cfi_endproc\n"
        ".size dlopen, .-dlopen\n"
        ".popsection\n");

#endif
