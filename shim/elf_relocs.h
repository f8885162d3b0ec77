/* Internal header: not installed. The ELF relocation walk: a loaded
 * object's relocations that name a symbol (REL and RELA; the PLT's and the
 * others), read from its dynamic section as the dynamic linker left it. */
#ifndef SL_SHIM_ELF_RELOCS_H
#define SL_SHIM_ELF_RELOCS_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
