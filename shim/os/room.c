/* A stack with room: Close or the exit path called from a handler on a
 * small alternate signal stack runs on a stack of its own. */
#include "os.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

/* ---- a stack with room ---- */

/* Close and the exit path call into libc, the status text, the rescue
 * file and the helpers: tens of KiB of stack (no frame over 4 KiB, but
 * many). A crash handler on a small alternate signal stack (8 KiB is
 * common: SIGSTKSZ) that calls Close or the exit function would overflow it into
 * whatever lies below. There the work runs on a stack of its own (1 MiB,
 * mapped for the call, only what is used is touched), with every signal
 * blocked while it does: on our stack the kernel would deliver a signal
 * for the alternate stack at its top, over the interrupted handler's
 * frames. */
#define ROOMY_STACK ((size_t)1 << 20)
#define ROOM_NEEDED ((size_t)128 << 10)

/* The two contexts and the function lie at the bottom of the mapped stack
 * (each thread on a small stack has its own; no thread-local variable,
 * which would make the shim need the dynamic loader's __tls_get_addr). */
typedef struct roomy {
    ucontext_t caller, callee;
    void (*fn)(void);
} roomy;

/* makecontext passes ints: the struct's address in two halves. */
static void roomy_entry(unsigned hi, unsigned lo)
{
    roomy *r = (roomy *)(((uintptr_t)hi << 32) | lo);
    r->fn();
}

/* Whether the caller runs on an alternate signal stack with less than
 * ROOM_NEEDED left. */
static int on_small_altstack(void)
{
    stack_t ss;
    if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK))
        return 0;
    char here;
    uintptr_t sp = (uintptr_t)&here, lo = (uintptr_t)ss.ss_sp;
    return sp < lo || sp - lo < ROOM_NEEDED;
}

void sl_with_room(void (*fn)(void))
{
    void *stack = MAP_FAILED;
    if (on_small_altstack())
        stack = mmap(NULL, ROOMY_STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    roomy *r = stack;
    if (stack == MAP_FAILED || getcontext(&r->callee) != 0) {
        if (stack != MAP_FAILED)
            munmap(stack, ROOMY_STACK);
        fn();
        return;
    }
    r->fn = fn;
    size_t used = (sizeof *r + 63) & ~(size_t)63;
    r->callee.uc_stack.ss_sp = (char *)stack + used;
    r->callee.uc_stack.ss_size = ROOMY_STACK - used;
    r->callee.uc_link = &r->caller;
    sigfillset(&r->callee.uc_sigmask);
    uintptr_t at = (uintptr_t)r;
    makecontext(&r->callee, (void (*)(void))roomy_entry, 2, (unsigned)(at >> 32),
                (unsigned)(at & 0xffffffffu));
    swapcontext(&r->caller, &r->callee);
    munmap(stack, ROOMY_STACK);
}
