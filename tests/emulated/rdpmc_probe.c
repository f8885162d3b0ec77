/* Does RDPMC work in user space here? LIKWID 5.2 tests it (in a child that
 * catches SIGSEGV) and, when it works, reads the core counters with RDPMC
 * instead of /dev/cpu/N/msr: then emulpmu cannot serve them. Exit 0 when
 * RDPMC faults (the emulation can serve every read), 1 when it works. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig)
{
    (void)sig;
    _exit(0);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    unsigned lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(0));
    printf("rdpmc works in user space (counter 0 = %llu)\n", ((unsigned long long)hi << 32) | lo);
    return 1;
}
