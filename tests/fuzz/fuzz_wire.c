/* libFuzzer target: the wire decoder (collector answers and rescue files come
 * from other processes and from disk: they are untrusted). */
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "run.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_diag diag;
    sl_run run;
    sl_diag_init(&diag);
    if (sl_run_init(&run) == 0) {
        (void)sl_wire_read_run((const char *)data, size, "fuzz", &run, &diag);
        sl_run_free(&run);
    }
    sl_likwid lw;
    sl_likwid_init(&lw);
    (void)sl_wire_read_likwid((const char *)data, size, "fuzz", &lw, &diag);
    sl_likwid_free(&lw);
    sl_diag_free(&diag);
    return 0;
}
