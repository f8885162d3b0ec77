/* libFuzzer target: the journal reader (core/journal/journal_read.c) on a journal
 * whose header is valid and whose records are the input: every address a
 * dead process left in the file must be checked before it is followed.
 * Addresses are offsets (base 0); byte 0 of the input chooses the clock. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "journal.h"
#include "run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t total = SL_JRN_HEADER_BYTES + size;
    unsigned char *img = aligned_alloc(64, (total + 63) / 64 * 64);
    if (!img)
        return 0;
    memset(img, 0, SL_JRN_HEADER_BYTES);
    memcpy(img + SL_JRN_HEADER_BYTES, data, size);
    sl_jrn_header *h = (sl_jrn_header *)img;
    memcpy(h->magic, SL_JRN_MAGIC, sizeof SL_JRN_MAGIC);
    h->header_bytes = SL_JRN_HEADER_BYTES;
    h->align = SL_JRN_ALIGN;
    h->size = total;
    h->used = total;
    h->tsc = size && (data[0] & 1);
    h->tick0 = 1000;
    h->ns0 = 5000;
    h->tick1 = size > 1 ? 1000 + data[1] : 1000;
    h->ns1 = 7000;
    sl_run run;
    sl_diag d;
    sl_jrn_info info;
    sl_jrn_clock clk = {0};
    sl_diag_init(&d);
    if (sl_run_init(&run) == 0) {
        sl_journal_read_mem(img, total, "fuzz", &clk, &run, &info, &d);
        sl_run_free(&run);
    }
    sl_diag_free(&d);
    free(img);
    return 0;
}
