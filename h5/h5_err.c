/* HDF5's error stack: printing silenced around our calls and restored
 * after, and the innermost message for diag lines. */
#include "h5_quiet.h"
#include "h5_util.h"

#include <stdio.h>

void sl_h5_silence(sl_h5_errsave *s)
{
    s->func = NULL;
    s->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &s->func, &s->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void sl_h5_restore(const sl_h5_errsave *s)
{
    H5Eset_auto2(H5E_DEFAULT, s->func, s->data);
}

static herr_t first_msg(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0 && e->desc)
        snprintf((char *)data, 256, "%s", e->desc);
    return 0;
}

void sl_h5_errmsg(char *buf, size_t len)
{
    char msg[256] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_msg, msg);
    snprintf(buf, len, "%s", msg);
}

void sl_h5_quiet_process(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}
