/* Raw HDF5 checks for the h5 tests (see h5check.h). */
#include "h5check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void expect_vlen_utf8(hid_t t, const char *name)
{
    cr_assert_eq(H5Tget_class(t), H5T_STRING, "%s: not a string", name);
    cr_expect_gt(H5Tis_variable_str(t), 0, "%s: not variable-length", name);
    cr_expect_eq(H5Tget_cset(t), H5T_CSET_UTF8, "%s: not UTF-8", name);
}

char *chk_str_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    cr_assert_geq(a, 0, "attribute %s missing", name);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    expect_vlen_utf8(t, name);
    cr_expect_eq(H5Sget_simple_extent_type(s), H5S_SCALAR, "%s: not scalar", name);
    char *v = NULL;
    cr_assert_geq(H5Aread(a, t, &v), 0);
    char *copy = strdup(v);
    H5free_memory(v);
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return copy;
}

int64_t chk_i64_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    cr_assert_geq(a, 0, "attribute %s missing", name);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    cr_expect_eq(H5Tget_class(t), H5T_INTEGER, "%s", name);
    cr_expect_eq(H5Tget_size(t), 8u, "%s", name);
    cr_expect_eq(H5Tget_sign(t), H5T_SGN_2, "%s", name);
    cr_expect_eq(H5Sget_simple_extent_type(s), H5S_SCALAR, "%s: not scalar", name);
    int64_t v = 0;
    cr_assert_geq(H5Aread(a, H5T_NATIVE_INT64, &v), 0);
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return v;
}

char **chk_strv_attr(hid_t obj, const char *name, size_t *n)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    cr_assert_geq(a, 0, "attribute %s missing", name);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    expect_vlen_utf8(t, name);
    cr_assert_eq(H5Sget_simple_extent_ndims(s), 1, "%s: not 1-D", name);
    hsize_t d = 0;
    H5Sget_simple_extent_dims(s, &d, NULL);
    char **v = calloc(d + 1, sizeof *v);
    if (d)
        cr_assert_geq(H5Aread(a, t, v), 0);
    for (size_t i = 0; i < d; i++) {
        char *c = strdup(v[i]);
        H5free_memory(v[i]);
        v[i] = c;
    }
    *n = (size_t)d;
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return v;
}

void chk_strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

unsigned char *chk_u8_attr(hid_t obj, const char *name, size_t *n)
{
    *n = 0;
    if (H5Aexists(obj, name) <= 0)
        return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    cr_expect_eq(H5Tget_class(t), H5T_INTEGER);
    cr_expect_eq(H5Tget_size(t), 1u);
    cr_expect_eq(H5Tget_sign(t), H5T_SGN_NONE);
    cr_assert_eq(H5Sget_simple_extent_ndims(s), 1);
    hsize_t d = 0;
    H5Sget_simple_extent_dims(s, &d, NULL);
    unsigned char *v = malloc(d + 1);
    cr_assert_geq(H5Aread(a, H5T_NATIVE_UINT8, v), 0);
    *n = (size_t)d;
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return v;
}

void *chk_data(hid_t g, const char *name, int is_float, int rank, size_t d0, size_t d1)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "dataset %s missing", name);
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    cr_expect_eq(H5Tget_class(t), is_float ? H5T_FLOAT : H5T_INTEGER, "%s: class", name);
    cr_expect_eq(H5Tget_size(t), 8u, "%s: size", name);
    if (!is_float)
        cr_expect_eq(H5Tget_sign(t), H5T_SGN_2, "%s: sign", name);
    cr_assert_eq(H5Sget_simple_extent_ndims(s), rank, "%s: rank", name);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(s, dims, NULL);
    cr_expect_eq(dims[0], d0, "%s: dim 0 is %llu, want %zu", name, (unsigned long long)dims[0], d0);
    if (rank == 2)
        cr_expect_eq(dims[1], d1, "%s: dim 1 is %llu, want %zu", name, (unsigned long long)dims[1], d1);
    size_t n = rank == 1 ? d0 : d0 * d1;
    void *buf = calloc(n ? n : 1, 8);
    if (n)
        cr_assert_geq(H5Dread(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL,
                              H5P_DEFAULT, buf), 0);
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
    return buf;
}

size_t chk_nlinks(hid_t g)
{
    H5G_info_t info;
    cr_assert_geq(H5Gget_info(g, &info), 0);
    return (size_t)info.nlinks;
}
