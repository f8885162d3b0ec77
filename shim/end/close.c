/* likwid_markerClose: the one caller (from any thread; a second waits for
 * the first) claims the cycle and runs the shared ending (end/ending.c) on
 * a stack with room. */
#include "end.h"

static void close_run(void)
{
    if (!sl_close_claim()) {
        sl_close_await();   /* a second Close, from any thread: answered here */
        return;
    }
    sl_end_cycle(&(sl_ending){.close = 1, .delivering = 1, .fork_parent = 1, .count_done = 1});
}

void sl_close_run(void)
{
    sl_with_room(close_run);
}
