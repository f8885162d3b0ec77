/* Internal header: not installed. Writing one pointer into a loaded
 * object's GOT: a slot the loader filled (or will fill lazily) with a
 * symbol's address. */
#ifndef SL_SHIM_GOT_WRITE_H
#define SL_SHIM_GOT_WRITE_H

#include <stdint.h>

#include "elf_relocs.h"

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

#endif
