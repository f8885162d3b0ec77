/* Internal header: not installed. The shim's group objects/: the loaded objects and real functions: LIKWID's, the shim's own file and
 * its other copies, ELF relocations, one GOT write. */
#ifndef SL_OBJECTS_H
#define SL_OBJECTS_H

#include "os.h"
#include "marker_fns.h"
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* One shim per process: with two copies of
 * libscope_likwid.so loaded (two paths in LD_PRELOAD, `scope-likwid run`
 * with a copy already preloaded), the first in the global scope gets the
 * application's calls and times them; it skips the other copy when it looks
 * for LIKWID (real.c), and the later copy makes itself pass-through when it
 * is loaded. */
/* Whether addr lies in another copy of the shim; its file name into path
 * (len bytes, cut to fit) when so. */
int sl_other_copy_at(const void *addr, char *path, size_t len);

/* LIKWID's real C marker functions, found
 * on first use with dlsym(RTLD_NEXT), or else in a liblikwid.so* loaded
 * RTLD_LOCAL (see real.c). Every member is NULL while LIKWID is not found:
 * callers then do the shim's part only, and the next call looks again. The
 * Fortran entry points are never used: they call the C ones through the PLT
 * and would come back into our wrappers. */
/* One pointer per row of SL_MARKER_FNS, named by its member column. */
#define SL_REAL_SLOT(cname, member, ret, params, args, fname, fshape, errno_) ret(*member) params;
typedef struct sl_real_api {
    SL_MARKER_FNS(SL_REAL_SLOT)
} sl_real_api;
#undef SL_REAL_SLOT

/* Thread-safe; never NULL itself. Once LIKWID is found the answer never
 * changes; until then it is the all-NULL table. */
const sl_real_api *sl_real(void);

/* The file of a second copy of the shim that the lookup skipped (it stays
 * out: copies.c), or NULL. */
const char *sl_real_other_copy(void);

/* Whether path names liblikwid: its file name starts with "liblikwid.so"
 * (liblikwid.so, liblikwid.so.5.2; not liblikwidpin.so). */
int sl_real_is_likwid(const char *path);

/* The path of the library holding r's functions, malloc'd; NULL: none. */
char *sl_real_library(const sl_real_api *r);
/* Its LIKWID version ("5.5.1", "5.2"; "unknown"), into out (n bytes). */
void sl_real_likwid_version(const sl_real_api *r, char *out, size_t n);
/* What LIKWID at library set up when it started here: the clock it
 * measured (timer_getCycleClock, timer_getCpuClock) in decimal Hz, empty
 * when it has none; the access daemon its configuration found, on the
 * heap, NULL when none (or no clock). */
typedef struct sl_likwid_setup {
    char cycle_hz[24], cpu_hz[24];
    char *accessd;
} sl_likwid_setup;
void sl_real_likwid_setup(const char *library, sl_likwid_setup *out);

/* The shim's own file (realpath, taken when the shim was loaded, before any
 * chdir), newly allocated; NULL when unknown. */
char *sl_self_path(void);

/* Internal header: not installed. The ELF relocation walk: a loaded
 * object's relocations that name a symbol (REL and RELA; the PLT's and the
 * others), read from its dynamic section as the dynamic linker left it. */

/* The architectures whose relocation types the walk knows; elsewhere
 * sl_elf_obj_read finds nothing. */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__i386__) || defined(__arm__)
#define SL_ELF_RELOCS 1
#else
#define SL_ELF_RELOCS 0
#endif

enum sl_reloc_kind {
    SL_RELOC_SLOT,      /* JUMP_SLOT or GLOB_DAT: the loader stores the symbol's address */
    SL_RELOC_POINTER,   /* an absolute pointer in data: the symbol's address plus an addend */
};

/* One loaded object, as dl_iterate_phdr reports it. */
typedef struct sl_elf_obj {
    uintptr_t base;                 /* dlpi_addr */
    const char *name;               /* dlpi_name ("" for the program) */
    const ElfW(Phdr) *phdr;
    int phnum;
    uintptr_t lo, hi;               /* the span of its PT_LOAD segments */
    uintptr_t relro_lo, relro_hi;   /* the pages made read-only after relocation */
    const ElfW(Sym) *symtab;
    const char *strtab;
    size_t strsz;
    struct sl_elf_table {
        uintptr_t at;
        size_t bytes, ent;
    } tables[3];                    /* DT_JMPREL, DT_RELA, DT_REL */
} sl_elf_obj;

/* Reads the object's dynamic section into o (page: the page size, for the
 * RELRO pages as the loader rounds them). 0, or -ENOENT: no dynamic
 * section, no symbol table, or an architecture the walk does not know. */
int sl_elf_obj_read(const struct dl_phdr_info *info, size_t page, sl_elf_obj *o);

/* Whether addr lies in one of o's PT_LOAD segments (writable: only those
 * with PF_W). */
int sl_elf_holds(const sl_elf_obj *o, uintptr_t addr, int writable);

/* Each relocation of o of kind SLOT or POINTER whose symbol's name starts
 * with prefix: fn(ctx, o, address of the relocated word, symbol name, kind,
 * whether o defines the symbol itself). Stops at the first non-zero answer
 * of fn and returns it; 0 after the last. */
typedef int (*sl_elf_reloc_fn)(void *ctx, const sl_elf_obj *o, uintptr_t word, const char *sym,
                               int kind, int defined);
int sl_elf_each_reloc(const sl_elf_obj *o, const char *prefix, sl_elf_reloc_fn fn, void *ctx);

/* Internal header: not installed. Writing one pointer into a loaded
 * object's GOT: a slot the loader filled (or will fill lazily) with a
 * symbol's address. */

/* Stores value into the pointer-sized slot at `slot` of o as one aligned
 * store: a thread calling through the slot meanwhile takes the old or the
 * new address, never a mix. A slot on o's RELRO pages is made writable for
 * the store only (mprotect, that one page) and read-only again, unless
 * may_protect is 0. 0, or -errno: -EPERM a RELRO slot with may_protect 0,
 * -EFAULT a slot in none of o's writable segments nor its RELRO pages,
 * -EINVAL a misaligned slot, or mprotect's error (a seccomp filter, a
 * security module). errno is kept. */
int sl_got_write(const sl_elf_obj *o, uintptr_t slot, uintptr_t value, int may_protect);

/* Whether pages may be made writable: 0 when a seccomp filter was
 * installed since the first time this was asked (its rules cannot be
 * read, and a filter may kill the process at a forbidden mprotect); a
 * filter in force at that first time is taken as allowing it. */
int sl_got_may_protect(void);

/* The shim's own file, resolved once (at load and at the first Init). */
void sl_self_resolve(void);
/* Whether another copy of the shim was loaded before this one. */
int sl_other_copy_before(void);

/* Whether the wrapper exists on this architecture (the version script
 * exports dlopen only then). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SL_DL_WRAP 1
#else
#define SL_DL_WRAP 0
#endif

/* real_libc.c: libc's exec family and dlopen, behind the shim's own
 * exported ones. sl_real_libc_find: once (at load and at the first Init);
 * a member is NULL when libc has none. */
typedef int (*sl_path_env_fn)(const char *, char *const[], char *const[]);
typedef int (*sl_path_fn)(const char *, char *const[]);
typedef int (*sl_fd_env_fn)(int, char *const[], char *const[]);
/* One row per wrapped function: name, type of the real one. The execl*
 * forms end in the real execv/execvp/execve. */
#define SL_EXEC_FUNCS(X) \
    X(execve, sl_path_env_fn) \
    X(execvpe, sl_path_env_fn) \
    X(execv, sl_path_fn) \
    X(execvp, sl_path_fn) \
    X(fexecve, sl_fd_env_fn)
typedef struct sl_libc_exec {
#define X(name, type) type name;
    SL_EXEC_FUNCS(X)
#undef X
} sl_libc_exec;
void sl_real_libc_find(void);
const sl_libc_exec *sl_real_exec(void);
typedef void *(*sl_dlopen_fn)(const char *, int);
sl_dlopen_fn sl_real_dlopen(void);

/* loaded.c: the loader's walk over the loaded objects (visit as
 * dl_iterate_phdr's; its answer); whether info's object holds addr (a
 * PT_LOAD segment); whether valgrind's preload is loaded. */
int sl_loaded_walk(int (*visit)(struct dl_phdr_info *info, size_t size, void *ctx), void *ctx);
int sl_loaded_holds(const struct dl_phdr_info *info, uintptr_t addr);
int sl_loaded_valgrind(void);

#pragma GCC visibility pop

#endif
