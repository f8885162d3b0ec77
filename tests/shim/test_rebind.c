/* The pieces of the rebinding that no loaded object exercises on x86-64:
 * the relocation walk over REL tables (and a PLT table counted in
 * DT_RELASZ), on a made-up object; one GOT slot written on a read-only
 * (RELRO) page and elsewhere; no page made writable after a seccomp
 * filter came. Objects really loaded RTLD_DEEPBIND: tests/faults/rebind.sh. */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "objects.h"

#if defined(__x86_64__)

/* A made-up object at base 0: every address in it is absolute. */
static const char strtab[] = "\0likwid_markerStartRegion\0likwid_markerInit\0printf";
static ElfW(Sym) symtab[4];
static uintptr_t words[8];
static ElfW(Rel) rel[4];
static ElfW(Rel) plt[1];
static ElfW(Rela) rela[3];      /* the last one is the PLT table of the second object */
static ElfW(Dyn) dyn[16];
static ElfW(Phdr) phdr[2];

typedef struct seen {
    int n;
    uintptr_t word[8];
    int kind[8], defined[8];
    const char *sym[8];
} seen;

static int collect(void *ctx, const sl_elf_obj *o, uintptr_t word, const char *sym, int kind,
                   int defined)
{
    seen *s = ctx;
    (void)o;
    cr_assert_lt(s->n, 8);
    s->word[s->n] = word;
    s->sym[s->n] = sym;
    s->kind[s->n] = kind;
    s->defined[s->n++] = defined;
    return 0;
}

static void set_dyn(int *i, ElfW(Sxword) tag, uintptr_t v)
{
    dyn[*i].d_tag = tag;
    dyn[*i].d_un.d_ptr = v;
    (*i)++;
}

static struct dl_phdr_info object(int as_rel)
{
    symtab[1] = (ElfW(Sym)){.st_name = 1, .st_shndx = SHN_UNDEF};
    symtab[2] = (ElfW(Sym)){.st_name = 26, .st_shndx = 12};     /* defined here */
    symtab[3] = (ElfW(Sym)){.st_name = 44, .st_shndx = SHN_UNDEF};
    rel[0] = (ElfW(Rel)){(uintptr_t)&words[0], ELF64_R_INFO(1, R_X86_64_GLOB_DAT)};
    rel[1] = (ElfW(Rel)){(uintptr_t)&words[1], ELF64_R_INFO(1, R_X86_64_64)};
    rel[2] = (ElfW(Rel)){(uintptr_t)&words[2], ELF64_R_INFO(1, R_X86_64_PC32)};    /* left out */
    rel[3] = (ElfW(Rel)){(uintptr_t)&words[3], ELF64_R_INFO(3, R_X86_64_GLOB_DAT)}; /* printf */
    plt[0] = (ElfW(Rel)){(uintptr_t)&words[4], ELF64_R_INFO(2, R_X86_64_JUMP_SLOT)};
    rela[0] = (ElfW(Rela)){(uintptr_t)&words[5], ELF64_R_INFO(1, R_X86_64_GLOB_DAT), 0};
    rela[1] = (ElfW(Rela)){(uintptr_t)&words[6], ELF64_R_INFO(0, R_X86_64_RELATIVE), 8};
    rela[2] = (ElfW(Rela)){(uintptr_t)&words[7], ELF64_R_INFO(1, R_X86_64_JUMP_SLOT), 0};
    int i = 0;
    set_dyn(&i, DT_SYMTAB, (uintptr_t)symtab);
    set_dyn(&i, DT_STRTAB, (uintptr_t)strtab);
    set_dyn(&i, DT_STRSZ, sizeof strtab);
    if (as_rel) {
        set_dyn(&i, DT_REL, (uintptr_t)rel);
        set_dyn(&i, DT_RELSZ, sizeof rel);
        set_dyn(&i, DT_RELENT, sizeof rel[0]);
        set_dyn(&i, DT_JMPREL, (uintptr_t)plt);
        set_dyn(&i, DT_PLTRELSZ, sizeof plt);
        set_dyn(&i, DT_PLTREL, DT_REL);
    } else {
        /* DT_RELASZ counts the PLT's relocation at its end too. */
        set_dyn(&i, DT_RELA, (uintptr_t)rela);
        set_dyn(&i, DT_RELASZ, sizeof rela);
        set_dyn(&i, DT_RELAENT, sizeof rela[0]);
        set_dyn(&i, DT_JMPREL, (uintptr_t)&rela[2]);
        set_dyn(&i, DT_PLTRELSZ, sizeof rela[0]);
        set_dyn(&i, DT_PLTREL, DT_RELA);
    }
    set_dyn(&i, DT_NULL, 0);
    phdr[0] = (ElfW(Phdr)){.p_type = PT_LOAD, .p_flags = PF_R | PF_W,
                           .p_vaddr = (uintptr_t)words, .p_memsz = sizeof words};
    phdr[1] = (ElfW(Phdr)){.p_type = PT_DYNAMIC, .p_vaddr = (uintptr_t)dyn};
    return (struct dl_phdr_info){.dlpi_addr = 0, .dlpi_name = "made-up", .dlpi_phdr = phdr,
                                 .dlpi_phnum = 2};
}

Test(elf_relocs, rel_tables)
{
    struct dl_phdr_info info = object(1);
    sl_elf_obj o;
    cr_assert_eq(sl_elf_obj_read(&info, 4096, &o), 0);
    seen s = {0};
    cr_assert_eq(sl_elf_each_reloc(&o, "likwid_marker", collect, &s), 0);
    /* The PLT's table first, then DT_REL's; PC32 and printf left out. */
    cr_assert_eq(s.n, 3);
    cr_assert_eq(s.word[0], (uintptr_t)&words[4]);
    cr_assert_str_eq(s.sym[0], "likwid_markerInit");
    cr_assert_eq(s.kind[0], SL_RELOC_SLOT);
    cr_assert_eq(s.defined[0], 1);
    cr_assert_eq(s.word[1], (uintptr_t)&words[0]);
    cr_assert_eq(s.kind[1], SL_RELOC_SLOT);
    cr_assert_eq(s.defined[1], 0);
    cr_assert_eq(s.word[2], (uintptr_t)&words[1]);
    cr_assert_eq(s.kind[2], SL_RELOC_POINTER);
    cr_assert_str_eq(s.sym[2], "likwid_markerStartRegion");
    cr_assert(sl_elf_holds(&o, (uintptr_t)&words[3], 1));
    cr_assert_not(sl_elf_holds(&o, (uintptr_t)dyn, 0));
}

Test(elf_relocs, plt_counted_once)
{
    struct dl_phdr_info info = object(0);
    sl_elf_obj o;
    cr_assert_eq(sl_elf_obj_read(&info, 4096, &o), 0);
    seen s = {0};
    sl_elf_each_reloc(&o, "likwid_marker", collect, &s);
    cr_assert_eq(s.n, 2, "each relocation once: %d", s.n);
    cr_assert_eq(s.word[0], (uintptr_t)&words[7]);
    cr_assert_eq(s.word[1], (uintptr_t)&words[5]);
}

#endif

/* The protection of the page at p in /proc/self/maps ("r--p"). */
static void perms_of(const void *p, char out[5])
{
    FILE *f = fopen("/proc/self/maps", "r");
    cr_assert_not_null(f);
    unsigned long lo, hi;
    char perms[5];
    strcpy(out, "?");
    while (fscanf(f, "%lx-%lx %4s%*[^\n]", &lo, &hi, perms) == 3)
        if ((uintptr_t)p >= lo && (uintptr_t)p < hi)
            strcpy(out, perms);
    fclose(f);
}

Test(got_write, relro_page_and_writable_segment)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    ElfW(Phdr) load = {.p_type = PT_LOAD, .p_flags = PF_R | PF_W,
                       .p_vaddr = (uintptr_t)map + page, .p_memsz = page};
    sl_elf_obj o = {.base = 0, .phdr = &load, .phnum = 1,
                    .relro_lo = (uintptr_t)map, .relro_hi = (uintptr_t)map + page};
    cr_assert_eq(mprotect(map, page, PROT_READ), 0);
    uintptr_t *relro = (uintptr_t *)(map + 16), *data = (uintptr_t *)(map + page + 8);
    char perms[5];

    cr_assert_eq(sl_got_write(&o, (uintptr_t)relro, 0x1234, 0), -EPERM);
    cr_assert_eq(*relro, 0);
    errno = 77;
    cr_assert_eq(sl_got_write(&o, (uintptr_t)relro, 0x1234, 1), 0);
    cr_assert_eq(errno, 77);
    cr_assert_eq(*relro, 0x1234);
    perms_of(relro, perms);
    cr_assert_str_eq(perms, "r--p", "the RELRO page read-only again: %s", perms);

    cr_assert_eq(sl_got_write(&o, (uintptr_t)data, 0x5678, 0), 0);
    cr_assert_eq(*data, 0x5678);
    cr_assert_eq(sl_got_write(&o, (uintptr_t)(map + 2 * page), 1, 1), -EFAULT);
    cr_assert_eq(sl_got_write(&o, (uintptr_t)data + 1, 1, 1), -EINVAL);
    munmap(map, 3 * page);
}

/* Criterion runs each test in a process of its own: the filter stays there. */
Test(got_write, no_protect_after_a_new_filter)
{
    cr_assert_eq(sl_got_may_protect(), 1);
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {1, &allow};
    cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
    cr_assert_eq(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0);
    cr_assert_eq(sl_got_may_protect(), 0);
}
