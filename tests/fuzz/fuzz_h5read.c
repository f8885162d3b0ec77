/* libFuzzer target: the result-file reader. The bytes are opened as an HDF5
 * file image in memory (core driver, nothing on disk), read into the model
 * (h5read.c, after the guard of h5_guard.c) and rendered as export rows (CSV
 * and JSON) and as the plot report (alone and compared with itself): for
 * any bytes, no crash, no hang, no leak, no out-of-bounds access, no
 * undefined behaviour. Seeded with real result files (tests/fuzz/corpus/h5/). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "export_rows.h"
#include "h5read.h"
#include "plot_buf.h"
#include "plot_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_runset set;
    sl_diag diag;
    sl_diag_init(&diag);
    if (sl_h5_read_image(data, size, "fuzz.h5", &set, &diag) == 0) {
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            (void)sl_export_write(f, &set, SL_EXPORT_CSV);
            (void)sl_export_write(f, &set, SL_EXPORT_JSON);
            fclose(f);
        }
        /* the report of the file, and of the file compared with itself */
        sl_plot_file files[2] = {{"fuzz.h5", &set}, {"fuzz.h5", &set}};
        sl_plot_opts opts = {.max_rects = 2000, .svg = 1};
        for (size_t n = 1; n <= 2; n++) {
            sl_buf out;
            sl_buf_init(&out);
            (void)sl_plot_report(&out, files, n, &opts);
            sl_buf_free(&out);
        }
        sl_runset_free(&set);
    }
    sl_diag_free(&diag);
    return 0;
}
