/* Simulated LIKWID, gfortran entry points. gfortran passes each string's
 * length as a hidden trailing argument. Like LIKWID 5.2.2 (whose trimming
 * only looks at the last character) the blank padding reaches the C call:
 * the tag is passed on untrimmed. */
#include <likwid.h>
#include <stdlib.h>
#include <string.h>

void likwid_markerinit_(void);
void likwid_markerthreadinit_(void);
void likwid_markerclose_(void);
void likwid_markernextgroup_(void);
void likwid_markerregisterregion_(const char *tag, size_t len);
void likwid_markerstartregion_(const char *tag, size_t len);
void likwid_markerstopregion_(const char *tag, size_t len);
void likwid_markerresetregion_(const char *tag, size_t len);
void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time,
                             int *count, size_t len);

static char *cstr(const char *tag, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        abort();
    memcpy(s, tag, len);
    s[len] = '\0';
    return s;
}

void likwid_markerinit_(void)
{
    likwid_markerInit();
}

void likwid_markerthreadinit_(void)
{
    likwid_markerThreadInit();
}

void likwid_markerclose_(void)
{
    likwid_markerClose();
}

void likwid_markernextgroup_(void)
{
    likwid_markerNextGroup();
}

void likwid_markerregisterregion_(const char *tag, size_t len)
{
    char *s = cstr(tag, len);
    likwid_markerRegisterRegion(s);
    free(s);
}

void likwid_markerstartregion_(const char *tag, size_t len)
{
    char *s = cstr(tag, len);
    likwid_markerStartRegion(s);
    free(s);
}

void likwid_markerstopregion_(const char *tag, size_t len)
{
    char *s = cstr(tag, len);
    likwid_markerStopRegion(s);
    free(s);
}

void likwid_markerresetregion_(const char *tag, size_t len)
{
    char *s = cstr(tag, len);
    likwid_markerResetRegion(s);
    free(s);
}

void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time,
                             int *count, size_t len)
{
    char *s = cstr(tag, len);
    likwid_markerGetRegion(s, nr_events, events, time, count);
    free(s);
}

#if SIM_LIKWID_MINOR >= 5
int likwid_markerWriteFile(const char *markerfile);
void likwid_markerwritefile_(const char *path, size_t len);

void likwid_markerwritefile_(const char *path, size_t len)
{
    char *p = strndup(path, len);
    if (!p)
        return;
    for (size_t n = strlen(p); n > 0 && p[n - 1] == ' '; n--)
        p[n - 1] = '\0';
    likwid_markerWriteFile(p);
    free(p);
}
#endif
