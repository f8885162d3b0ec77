/* The marker-file reader inside an application that set a locale whose
 * decimal point is ',' (the shim runs in such programs): values must still
 * read as LIKWID wrote them, also from several threads at once.
 * Exits 77 (meson: SKIP) when no such locale can be had. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "likwid_result.h"
#include "markerfile.h"

static int fails;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            fails++;                                                                     \
        }                                                                                \
    } while (0)

static int comma_locale(void)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                        "fr_FR.utf8", "de_DE", "fr_FR"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (setlocale(LC_NUMERIC, names[i]) && strcmp(localeconv()->decimal_point, ",") == 0)
            return 1;
    return 0;
}

/* Builds de_DE.UTF-8 in a private directory when the system has none. */
static int make_locale(char *dir)
{
    if (access("/usr/share/i18n/locales/de_DE", R_OK) != 0 || !mkdtemp(dir))
        return 0;
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", dir);
    if (system(cmd) == -1)
        return 0;
    setenv("LOCPATH", dir, 1);
    return 1;
}

/* Fast-path values, one only strtod can round, nan. */
static const char TEXT[] = "2 1 1\n0:a-0\n"
                           "0 0 0 3 1.843376e-01 4 9.871654e+08 1.5 "
                           "1.2345678901234567890123e+00 nan \n"
                           "0 0 1 3 2.5e-01 4 2.5 3.25e+300 1e-30 -nan \n";

static void check_parse(void)
{
    sl_likwid lw;
    sl_diag diag;
    sl_markerfile_info info;
    sl_likwid_init(&lw);
    sl_diag_init(&diag);
    int rc = sl_markerfile_parse(TEXT, sizeof TEXT - 1, "t", SL_MF_STRICT, &lw, &info, &diag);
    for (size_t i = 0; i < diag.kept; i++)
        fprintf(stderr, "diag: %s\n", diag.lines[i]);
    CHECK(rc == 0);
    if (rc == 0) {
        const sl_region *r = &lw.regions[0];
        CHECK(r->nthreads == 2 && r->nevents == 4);
        CHECK(r->times[0] == 1.843376e-01);
        CHECK(r->times[1] == 0.25);
        CHECK(r->events[0] == 9.871654e+08);
        CHECK(r->events[1] == 2.5);
        CHECK(r->events[2] == 1.5);
        CHECK(r->events[3] == 3.25e+300);
        CHECK(r->events[4] == 1.2345678901234567890123e+00);
        CHECK(r->events[5] == 1e-30);
        CHECK(isnan(r->events[6]) && isnan(r->events[7]));
    }
    sl_likwid_free(&lw);
    sl_diag_free(&diag);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++)
        check_parse();
    return NULL;
}

int main(void)
{
    char dir[] = "/tmp/sl_test_locale_XXXXXX";
    int made = 0;
    if (!comma_locale()) {
        made = make_locale(dir);
        if (!made || !comma_locale()) {
            fprintf(stderr, "no locale with a decimal comma: skipped\n");
            if (made) {
                char cmd[256];
                snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
                (void)!system(cmd);
            }
            return 77;
        }
    }
    /* the trap is live: plain strtod stops at the '.' */
    CHECK(strtod("1.5", NULL) == 1.0);

    pthread_t th[4];
    int started = 0;
    while (started < 4 && pthread_create(&th[started], NULL, worker, NULL) == 0)
        started++;
    CHECK(started == 4);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    check_parse();

    if (made) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        (void)!system(cmd);
    }
    if (fails)
        fprintf(stderr, "%d checks failed\n", fails);
    return fails ? 1 : 0;
}
