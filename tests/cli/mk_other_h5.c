/* mk_other_h5 FILE [ours]: an HDF5 file with content that is not ours, for
 * the `convert --into` tests: root attr "owner", /other/data (int, attr
 * "note"), /rank0 with attr "custom" and dataset "mine". With "ours" the
 * root also says format = "scope-likwid" (a result file that holds other
 * things too, which --into must leave alone); without, --into refuses it. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

static int put_str_attr(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    H5Tset_size(t, strlen(value) + 1);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, t, value) < 0;
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    return rc;
}

static int put_ints(hid_t loc, const char *name, const int *v, hsize_t n)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    if (!rc)
        rc = put_str_attr(d, "note", "keep me");
    H5Dclose(d);
    H5Sclose(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "ours"))) {
        fprintf(stderr, "usage: mk_other_h5 FILE [ours]\n");
        return 2;
    }
    hid_t f = H5Fcreate(argv[1], H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    static const int data[] = {1, 2, 3}, mine[] = {42};
    hid_t other = H5Gcreate2(f, "other", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t rank0 = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = other < 0 || rank0 < 0 || put_str_attr(f, "owner", "someone else") ||
             put_ints(other, "data", data, 3) || put_ints(rank0, "mine", mine, 1) ||
             put_str_attr(rank0, "custom", "untouched") ||
             (argc == 3 && put_str_attr(f, "format", "scope-likwid"));
    H5Gclose(other);
    H5Gclose(rank0);
    if (H5Fclose(f) < 0)
        rc = 1;
    return rc;
}
