/* Region colours for scope-likwid plot (plot_colours.h): golden-angle hues,
 * so any number of regions gets distinguishable neighbours. */
#include "plot_colours.h"
#include "plot_safe.h"
#include "region_order.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static struct sl_colour_slot *slot_of(const sl_plot_colours *c, const char *tag, size_t len)
{
    size_t mask = c->nslots - 1;
    for (size_t i = (size_t)hash(tag, len) & mask;; i = (i + 1) & mask) {
        struct sl_colour_slot *s = &c->slots[i];
        if (!s->tag || (s->len == len && !memcmp(s->tag, tag, len)))
            return s;
    }
}

static void add(sl_plot_colours *c, const char *tag, size_t len)
{
    struct sl_colour_slot *s = slot_of(c, tag, len);
    if (!s->tag)
        *s = (struct sl_colour_slot){tag, len, c->n++};
}

/* Adds set's tags: each rank's timing regions costliest first, then its
 * LIKWID regions. 0 or -ENOMEM. */
static int add_set(sl_plot_colours *c, const sl_runset *set)
{
    for (size_t r = 0; r < set->nruns; r++) {
        const sl_timing *tm = &set->runs[r].timing;
        size_t *o = sl_timing_order(tm);    /* costliest first: the first colours */
        if (!o)
            return -ENOMEM;
        for (size_t i = 0; i < tm->nregions; i++)
            add(c, tm->regions[o[i]].tag, tm->regions[o[i]].tag_len);
        free(o);
        const sl_likwid *lw = &set->runs[r].likwid;
        for (size_t i = 0; i < lw->nregions; i++)
            add(c, lw->regions[i].tag, lw->regions[i].tag_len);
    }
    return 0;
}

int sl_plot_colours_build(sl_plot_colours *c, const sl_runset *const *sets, size_t nsets)
{
    memset(c, 0, sizeof *c);
    size_t total = 0;
    for (size_t f = 0; f < nsets; f++)
        for (size_t r = 0; r < sets[f]->nruns; r++)
            total += sets[f]->runs[r].timing.nregions + sets[f]->runs[r].likwid.nregions;
    c->nslots = 16;
    while (c->nslots < 2 * total + 1)
        c->nslots *= 2;
    c->slots = calloc(c->nslots, sizeof *c->slots);
    if (!c->slots)
        return -ENOMEM;
    for (size_t f = 0; f < nsets; f++)
        if (add_set(c, sets[f])) {
            sl_plot_colours_free(c);
            return -ENOMEM;
        }
    return 0;
}

void sl_plot_colours_free(sl_plot_colours *c)
{
    free(c->slots);
    memset(c, 0, sizeof *c);
}

size_t sl_plot_colour(const sl_plot_colours *c, const char *tag, size_t len)
{
    if (!c->nslots)
        return 0;
    const struct sl_colour_slot *s = slot_of(c, tag, len);
    return s->tag ? s->index : 0;
}

/* HSL (h in degrees, s and l in 0..1) to 0xRRGGBB. */
static unsigned rgb(double h, double s, double l)
{
    double ch = (1 - fabs(2 * l - 1)) * s;
    double hp = fmod(h, 360.0) / 60.0;
    double x = ch * (1 - fabs(fmod(hp, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    switch ((int)hp) {
    case 0: r = ch; g = x; break;
    case 1: r = x; g = ch; break;
    case 2: g = ch; b = x; break;
    case 3: g = x; b = ch; break;
    case 4: r = x; b = ch; break;
    default: r = ch; b = x; break;
    }
    double m = l - ch / 2;
    unsigned R = (unsigned)lround((r + m) * 255), G = (unsigned)lround((g + m) * 255),
             B = (unsigned)lround((b + m) * 255);
    return R << 16 | G << 8 | B;
}

void sl_plot_colours_css(const sl_plot_colours *c, sl_buf *b)
{
    size_t n = c->n ? c->n : 1;
    for (size_t i = 0; i < n; i++) {
        /* the first hue is a blue; lightness steps apart hues that meet */
        double h = fmod(210.0 + (double)i * 137.508, 360.0);
        double l = 0.42 + 0.10 * (double)(i % 3);
        sl_buf_printf(b, ".c%zu{fill:#%06x}", i, rgb(h, 0.62, l));
    }
    /* the files of a comparison: far apart, none a region's exact colour
     * (the region hues have saturation 0.62) */
    static const double file_hue[SL_PLOT_FILE_COLOURS] = {25, 275, 165, 335, 50, 110};
    for (size_t i = 0; i < SL_PLOT_FILE_COLOURS; i++)
        sl_buf_printf(b, ".f%zu{fill:#%06x}", i, rgb(file_hue[i], 0.9, 0.40));
    sl_buf_puts(b, "\n");
}
