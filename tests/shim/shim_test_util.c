/* Helpers for the shim's unit tests. */
#include "shim_test_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

char *tu_tempdir(void)
{
    char tmpl[] = "/tmp/sl-shim-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

char *tu_script(const char *dir, const char *name, const char *body)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(path);
        return NULL;
    }
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    chmod(path, 0755);
    return path;
}

char *tu_slurp(const char *path, size_t *len)
{
    char *buf;
    size_t l;
    if (sl_read_file(path, 0, &buf, &l) != 0)
        return NULL;
    if (len)
        *len = l;
    return buf;
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

char *tu_slurp_result(const char *path, size_t *len)
{
    char wire[4200];
    snprintf(wire, sizeof wire, "%s.wire", path);
    return tu_slurp(tu_exists(wire) ? wire : path, len);
}
