/* The ELF relocation walk (elf_relocs.h): nothing is written, nothing
 * loaded; the tables are those the dynamic linker itself relocated the
 * object with. */

#include "objects.h"
#include <errno.h>
#include <string.h>

#if __ELF_NATIVE_CLASS == 64
#define R_SYM(info) ELF64_R_SYM(info)
#define R_TYPE(info) ELF64_R_TYPE(info)
#else
#define R_SYM(info) ELF32_R_SYM(info)
#define R_TYPE(info) ELF32_R_TYPE(info)
#endif

/* The kind of a relocation type; -1 for every type the walk leaves out. */
static int kind_of(unsigned long type)
{
    switch (type) {
#if defined(__x86_64__)
    case R_X86_64_JUMP_SLOT:
    case R_X86_64_GLOB_DAT: return SL_RELOC_SLOT;
    case R_X86_64_64: return SL_RELOC_POINTER;
#elif defined(__aarch64__)
    case R_AARCH64_JUMP_SLOT:
    case R_AARCH64_GLOB_DAT: return SL_RELOC_SLOT;
    case R_AARCH64_ABS64: return SL_RELOC_POINTER;
#elif defined(__i386__)
    case R_386_JMP_SLOT:
    case R_386_GLOB_DAT: return SL_RELOC_SLOT;
    case R_386_32: return SL_RELOC_POINTER;
#elif defined(__arm__)
    case R_ARM_JUMP_SLOT:
    case R_ARM_GLOB_DAT: return SL_RELOC_SLOT;
    case R_ARM_ABS32: return SL_RELOC_POINTER;
#endif
    default: return -1;
    }
}

/* glibc relocates most d_ptr entries in place; the vDSO's are not. */
static uintptr_t dyn_ptr(uintptr_t base, uintptr_t p)
{
    return p < base ? p + base : p;
}

/* The span of the PT_LOAD segments, the RELRO pages and the dynamic
 * section's address (0: none). */
static uintptr_t read_segments(const struct dl_phdr_info *info, size_t page, sl_elf_obj *o)
{
    uintptr_t dyn = 0;
    o->lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t at = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD) {
            if (at < o->lo)
                o->lo = at;
            if (at + p->p_memsz > o->hi)
                o->hi = at + p->p_memsz;
        } else if (p->p_type == PT_DYNAMIC) {
            dyn = at;
        } else if (p->p_type == PT_GNU_RELRO && page) {
            /* The loader protects whole pages only: from the page the
             * segment starts in up to the last page it fills. */
            o->relro_lo = at & ~(uintptr_t)(page - 1);
            o->relro_hi = (at + p->p_memsz) & ~(uintptr_t)(page - 1);
        }
    }
    if (o->lo == UINTPTR_MAX)
        o->lo = 0;
    return dyn;
}

int sl_elf_obj_read(const struct dl_phdr_info *info, size_t page, sl_elf_obj *o)
{
    memset(o, 0, sizeof *o);
    o->base = info->dlpi_addr;
    o->name = info->dlpi_name ? info->dlpi_name : "";
    o->phdr = info->dlpi_phdr;
    o->phnum = info->dlpi_phnum;
    uintptr_t dyn_at = read_segments(info, page, o);
    if (!SL_ELF_RELOCS || !dyn_at)
        return -ENOENT;
    size_t relaent = sizeof(ElfW(Rela)), relent = sizeof(ElfW(Rel));
    long pltrel = DT_RELA;
    for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)dyn_at; d->d_tag != DT_NULL; d++)
        switch (d->d_tag) {
        case DT_JMPREL: o->tables[0].at = dyn_ptr(o->base, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: o->tables[0].bytes = d->d_un.d_val; break;
        case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
        case DT_RELA: o->tables[1].at = dyn_ptr(o->base, d->d_un.d_ptr); break;
        case DT_RELASZ: o->tables[1].bytes = d->d_un.d_val; break;
        case DT_RELAENT: relaent = d->d_un.d_val; break;
        case DT_REL: o->tables[2].at = dyn_ptr(o->base, d->d_un.d_ptr); break;
        case DT_RELSZ: o->tables[2].bytes = d->d_un.d_val; break;
        case DT_RELENT: relent = d->d_un.d_val; break;
        case DT_SYMTAB: o->symtab = (const ElfW(Sym) *)dyn_ptr(o->base, d->d_un.d_ptr); break;
        case DT_STRTAB: o->strtab = (const char *)dyn_ptr(o->base, d->d_un.d_ptr); break;
        case DT_STRSZ: o->strsz = d->d_un.d_val; break;
        default: break;
        }
    o->tables[0].ent = pltrel == DT_REL ? relent : relaent;
    o->tables[1].ent = relaent;
    o->tables[2].ent = relent;
    for (int t = 0; t < 3; t++) {
        struct sl_elf_table *tt = &o->tables[t];
        if (tt->ent < sizeof(ElfW(Rel)))
            tt->bytes = 0;      /* an entry too short to hold r_info */
        /* Some linkers count the PLT's relocations, at the end, in
         * DT_RELASZ (DT_RELSZ) too: each is visited once. */
        if (t > 0 && o->tables[0].at > tt->at && o->tables[0].at < tt->at + tt->bytes)
            tt->bytes = o->tables[0].at - tt->at;
    }
    return o->symtab && o->strtab && o->strsz ? 0 : -ENOENT;
}

int sl_elf_holds(const sl_elf_obj *o, uintptr_t addr, int writable)
{
    for (int i = 0; i < o->phnum; i++) {
        const ElfW(Phdr) *p = &o->phdr[i];
        uintptr_t at = o->base + p->p_vaddr;
        if (p->p_type == PT_LOAD && addr >= at && addr - at < p->p_memsz &&
            (!writable || (p->p_flags & PF_W)))
            return 1;
    }
    return 0;
}

/* One table (REL or RELA: both begin with r_offset and r_info). */
static int each_in_table(const sl_elf_obj *o, const struct sl_elf_table *t, const char *prefix,
                         size_t plen, sl_elf_reloc_fn fn, void *ctx)
{
    for (size_t off = 0; t->at && off + t->ent <= t->bytes; off += t->ent) {
        ElfW(Rel) r;
        memcpy(&r, (const void *)(t->at + off), sizeof r);
        size_t sym = R_SYM(r.r_info);
        int kind = kind_of(R_TYPE(r.r_info));
        if (sym == 0 || kind < 0)
            continue;
        const ElfW(Sym) *s = &o->symtab[sym];
        if (s->st_name >= o->strsz)
            continue;
        const char *name = o->strtab + s->st_name;
        if (name[0] != prefix[0] || strncmp(name, prefix, plen) != 0)
            continue;
        int rc = fn(ctx, o, o->base + r.r_offset, name, kind, s->st_shndx != SHN_UNDEF);
        if (rc)
            return rc;
    }
    return 0;
}

int sl_elf_each_reloc(const sl_elf_obj *o, const char *prefix, sl_elf_reloc_fn fn, void *ctx)
{
    size_t plen = strlen(prefix);
    for (int t = 0; t < 3; t++) {
        int rc = each_in_table(o, &o->tables[t], prefix, plen, fn, ctx);
        if (rc)
            return rc;
    }
    return 0;
}
