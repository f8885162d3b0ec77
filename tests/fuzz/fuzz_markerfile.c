/* libFuzzer target: the marker-file reader, strict and salvage, must never
 * crash, leak or read out of bounds on any input. */
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "likwid_result.h"
#include "markerfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int flags = 0; flags <= SL_MF_STRICT; flags += SL_MF_STRICT) {
        sl_likwid lw;
        sl_diag diag;
        sl_markerfile_info info = {0};
        sl_likwid_init(&lw);
        sl_diag_init(&diag);
        (void)sl_markerfile_parse((const char *)data, size, "fuzz", flags, &lw, &info, &diag);
        sl_likwid_free(&lw);
        sl_diag_free(&diag);
    }
    return 0;
}
