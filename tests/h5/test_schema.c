/* The schema table (h5/schema.h) and the written file agree both ways:
 * every required row is in the file with its type and rank, every optional
 * row present has them, and every attribute, group and dataset the writer
 * made is a row (a LIKWID_* variable matches the pattern row). A field
 * written without a row, or a row the writer forgot, fails here. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "h5write.h"
#include "schema.h"

static H5T_class_t class_of(sl_h5_type t)
{
    switch (t) {
    case SL_H5T_STR:
    case SL_H5T_STRV: return H5T_STRING;
    case SL_H5T_U8V:
    case SL_H5T_I64: return H5T_INTEGER;
    case SL_H5T_F64: return H5T_FLOAT;
    default: return H5T_NO_CLASS;
    }
}

/* The row of object o named name (pattern rows match by prefix). */
static const sl_h5_field *row_of(sl_h5_obj o, sl_h5_kind k, const char *name)
{
    for (int i = 0; i < SL_H5F_COUNT; i++) {
        const sl_h5_field *f = &sl_h5_schema[i];
        if (f->obj != o || f->kind != k)
            continue;
        if (f->need == SL_H5_PAT ? !strncmp(name, f->name, strlen(f->name))
                                 : !strcmp(name, f->name))
            return f;
    }
    return NULL;
}

static void check_type(const char *where, const sl_h5_field *f, hid_t type, hid_t space)
{
    cr_expect_eq(H5Tget_class(type), class_of(f->type), "%s/%s: wrong type class", where,
                 f->name);
    if (f->type == SL_H5T_U8V)
        cr_expect_eq(H5Tget_size(type), 1u, "%s/%s: not uint8", where, f->name);
    cr_expect_eq(H5Sget_simple_extent_ndims(space), f->rank, "%s/%s: wrong rank", where,
                 f->name);
}

static herr_t attr_is_row(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    const char *where = ((const char **)data)[0];
    sl_h5_obj o = (sl_h5_obj)(intptr_t)((const char **)data)[1];
    const sl_h5_field *f = row_of(o, SL_H5K_ATTR, name);
    cr_expect_not_null(f, "%s: attr %s is not in the schema", where, name);
    if (f) {
        hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a), s = H5Aget_space(a);
        check_type(where, f, t, s);
        H5Tclose(t);
        H5Sclose(s);
        H5Aclose(a);
    }
    return 0;
}

static herr_t link_is_row(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    const char *where = ((const char **)data)[0];
    sl_h5_obj o = (sl_h5_obj)(intptr_t)((const char **)data)[1];
    hid_t x = H5Oopen(g, name, H5P_DEFAULT);
    int is_data = H5Iget_type(x) == H5I_DATASET;
    const sl_h5_field *f = row_of(o, is_data ? SL_H5K_DATA : SL_H5K_GROUP, name);
    cr_expect_not_null(f, "%s: %s %s is not in the schema", where, is_data ? "dataset" : "group",
                       name);
    if (f && is_data) {
        hid_t t = H5Dget_type(x), s = H5Dget_space(x);
        check_type(where, f, t, s);
        H5Tclose(t);
        H5Sclose(s);
    }
    H5Oclose(x);
    return 0;
}

/* Checks one object of the file against the rows of o. */
static void check_object(hid_t obj, const char *where, sl_h5_obj o)
{
    for (int i = 0; i < SL_H5F_COUNT; i++) {
        const sl_h5_field *f = &sl_h5_schema[i];
        if (f->obj != o || f->need != SL_H5_REQ)
            continue;
        htri_t has = f->kind == SL_H5K_ATTR ? H5Aexists(obj, f->name)
                                            : H5Lexists(obj, f->name, H5P_DEFAULT);
        cr_expect_gt(has, 0, "%s: required %s %s missing", where, sl_h5_kind_name(f->kind),
                     f->name);
    }
    const char *data[2] = {where, (const char *)(intptr_t)o};
    hsize_t idx = 0;
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_is_row, data);
    idx = 0;
    H5Literate(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, link_is_row, data);
}

/* Every region group below path/regions. */
static void check_regions(hid_t parent, const char *path, sl_h5_obj o)
{
    hid_t regs = H5Gopen2(parent, SL_H5N_regions, H5P_DEFAULT);
    cr_assert_geq(regs, 0, "%s/regions", path);
    H5G_info_t info;
    H5Gget_info(regs, &info);
    cr_assert_gt(info.nlinks, 0, "%s/regions is empty: nothing checked", path);
    for (hsize_t i = 0; i < info.nlinks; i++) {
        hid_t g = H5Oopen_by_idx(regs, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT);
        cr_assert_geq(g, 0);
        check_object(g, path, o);
        H5Oclose(g);
    }
    H5Gclose(regs);
}

Test(schema, written_file_matches_the_table)
{
    sl_run run;
    fixture_run(&run, 0);
    char *dir = fixture_dir(), *path = NULL;
    cr_assert_geq(asprintf(&path, "%s/schema.h5", dir), 0);
    sl_diag diag;
    sl_diag_init(&diag);
    cr_assert_eq(sl_h5_write(path, &run, 1, NULL, &diag), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);

    check_object(f, "/", SL_H5O_ROOT);
    hid_t meta = H5Gopen2(f, SL_H5N_metadata, H5P_DEFAULT);
    cr_assert_geq(meta, 0, "the fixture has metadata");
    cr_expect_gt(H5Aexists(meta, "SLURM_JOB_ID"), 0, "the fixture's SLURM_* attrs");
    check_object(meta, "/metadata", SL_H5O_META);
    H5Gclose(meta);
    hid_t rank = H5Gopen2(f, "rank0", H5P_DEFAULT);
    check_object(rank, "/rank0", SL_H5O_RANK);
    hid_t timing = H5Gopen2(rank, SL_H5N_timing, H5P_DEFAULT);
    check_object(timing, "/rank0/timing", SL_H5O_TIMING);
    check_regions(timing, "/rank0/timing/regions", SL_H5O_TREG);
    hid_t likwid = H5Gopen2(rank, SL_H5N_likwid, H5P_DEFAULT);
    cr_assert_geq(likwid, 0, "the fixture has counter data");
    cr_expect_gt(H5Aexists(likwid, "LIKWID_EVENTS"), 0, "the fixture's env attrs");
    check_object(likwid, "/rank0/likwid", SL_H5O_LIKWID);
    check_regions(likwid, "/rank0/likwid/regions", SL_H5O_LREG);
    H5Gclose(likwid);
    H5Gclose(timing);
    H5Gclose(rank);
    H5Fclose(f);

    sl_diag_free(&diag);
    sl_run_free(&run);
    fixture_rmdir(dir);
    free(dir);
    free(path);
}

/* The loops of the writer and the reader take a member's C type from its
 * row: a member of another type (an int where the row says I64, a double
 * array where it says int64) would be written and read as garbage. */
Test(schema, members_have_the_rows_types)
{
    int checked = 0;
    for (int i = 0; i < SL_H5F_COUNT; i++) {
        const sl_h5_field *f = &sl_h5_schema[i];
        const sl_h5_member *m = &f->model;
        if (m->how == SL_H5M_NO || m->how == SL_H5M_FN || m->how == SL_H5M_SRC)
            continue;
        sl_h5_type want = m->how == SL_H5M_TAG ? SL_H5T_STR : f->type;
        cr_expect_eq(m->ctype, want, "%s%s: its member is a %s, the row says %s",
                     sl_h5_obj_path(f->obj), f->name, sl_h5_type_name(m->ctype),
                     sl_h5_type_name(want));
        cr_expect(f->kind != SL_H5K_GROUP, "%s%s: a group has no member", sl_h5_obj_path(f->obj),
                  f->name);
        cr_expect(m->how != SL_H5M_MAT || f->rank == 2, "%s%s: MAT of a rank-%d row",
                  sl_h5_obj_path(f->obj), f->name, f->rank);
        checked++;
    }
    cr_expect_gt(checked, 30, "the rows name their members");
}

/* The loops visit a place's rows as one run of the table (schema.c): the
 * rows of a place together, the places in the order of sl_h5_obj. */
Test(schema, places_are_runs_of_rows)
{
    for (int i = 1; i < SL_H5F_COUNT; i++)
        cr_expect_leq(sl_h5_schema[i - 1].obj, sl_h5_schema[i].obj, "%s%s after %s%s",
                      sl_h5_obj_path(sl_h5_schema[i].obj), sl_h5_schema[i].name,
                      sl_h5_obj_path(sl_h5_schema[i - 1].obj), sl_h5_schema[i - 1].name);
}
