/* Raw HDF5 checks for the h5 tests: read attributes and datasets with the
 * plain C API and assert their type class, size and shape. */
#ifndef SL_TEST_H5CHECK_H
#define SL_TEST_H5CHECK_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Scalar variable-length UTF-8 string attribute; returns a malloc'd copy. */
char *chk_str_attr(hid_t obj, const char *name);
/* Scalar int64 attribute. */
int64_t chk_i64_attr(hid_t obj, const char *name);
/* 1-D variable-length UTF-8 string array attribute; *n gets its length. */
char **chk_strv_attr(hid_t obj, const char *name, size_t *n);
void chk_strv_free(char **v, size_t n);
/* 1-D uint8 attribute; NULL when absent. */
unsigned char *chk_u8_attr(hid_t obj, const char *name, size_t *n);
/* Dataset of int64 (is_float 0) or float64 with the given shape; returns a
 * malloc'd copy of its data (at least 1 byte). */
void *chk_data(hid_t g, const char *name, int is_float, int rank, size_t d0, size_t d1);
/* Number of links in a group. */
size_t chk_nlinks(hid_t g);

#endif
