/* The schema table (schema.h), built from SL_H5_SCHEMA: one row per field;
 * and the loops over it that write and read a place's fields from and into
 * the model (h5_util.h): the rows name the members, these loops follow them. */
#include "schema.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"
#include "h5read.h"
#include "run.h"

#define ANY ((size_t)-1)

/* The C type of member m of struct S, as a row type (tests/h5/test_schema.c
 * checks it is the row's). */
#define CTYPE(S, m)                                                                        \
    _Generic(((S *)0)->m, int64_t: SL_H5T_I64, char *: SL_H5T_STR, int64_t *: SL_H5T_I64, \
             double *: SL_H5T_F64, char **: SL_H5T_STRV, default: SL_H5T_NONE)

/* The model column (schema.h): a row's MEM(S, m) becomes M_MEM(S, m). */
#define M_NO {SL_H5M_NO, 0, {0, 0}, SL_H5T_NONE}
#define M_FN {SL_H5M_FN, 0, {0, 0}, SL_H5T_NONE}
#define M_MEM(S, m) {SL_H5M_MEM, offsetof(S, m), {0, 0}, CTYPE(S, m)}
#define M_SET(S, m) {SL_H5M_SET, offsetof(S, m), {0, 0}, CTYPE(S, m)}
#define M_SRC(S, m) {SL_H5M_SRC, offsetof(S, m), {0, 0}, SL_H5T_NONE}
#define M_TAG(S, m, n) {SL_H5M_TAG, offsetof(S, m), {offsetof(S, n), 0}, CTYPE(S, m)}
#define M_ARR(S, m, n) {SL_H5M_ARR, offsetof(S, m), {offsetof(S, n), 0}, CTYPE(S, m)}
#define M_MAT(S, m, r, c) {SL_H5M_MAT, offsetof(S, m), {offsetof(S, r), offsetof(S, c)}, CTYPE(S, m)}

const sl_h5_field sl_h5_schema[SL_H5F_COUNT] = {
#define SL_H5_X(id, obj, name, kind, type, rank, shape, need, since, model)                 \
    [SL_H5F_##id] = {SL_H5N_##name, shape, SL_H5O_##obj, SL_H5K_##kind, SL_H5T_##type, rank, \
                     SL_H5_##need, since, M_##model},
    SL_H5_SCHEMA(SL_H5_X)
#undef SL_H5_X
};

/* The rows of each place: [row_first[o], row_first[o + 1]). A place's rows
 * are together and the places in the order of sl_h5_obj (test_schema.c
 * checks), so the loops below visit a place's rows only. */
static int row_first[SL_H5O_LREG + 2];

__attribute__((constructor)) static void index_places(void)
{
    int i = 0;
    for (int o = 0; o <= SL_H5O_LREG + 1; o++) {
        while (i < SL_H5F_COUNT && (int)sl_h5_schema[i].obj < o)
            i++;
        row_first[o] = i;
    }
}

/* Each row i of place while cond holds. */
#define EACH_ROW(i, place, cond)                                                       \
    for (int i = row_first[place], end_ = row_first[(place) + 1]; (cond) && i < end_; i++)

const char *sl_h5_obj_path(sl_h5_obj o)
{
    switch (o) {
    case SL_H5O_ROOT: return "/";
    case SL_H5O_META: return "/metadata/";
    case SL_H5O_RANK: return "/rank<R>/";
    case SL_H5O_TIMING: return "/rank<R>/timing/";
    case SL_H5O_TREG: return "/rank<R>/timing/regions/<name>/";
    case SL_H5O_LIKWID: return "/rank<R>/likwid/";
    case SL_H5O_LREG: return "/rank<R>/likwid/regions/<name>/";
    }
    return "?";
}

const char *sl_h5_kind_name(sl_h5_kind k)
{
    return k == SL_H5K_GROUP ? "group" : k == SL_H5K_ATTR ? "attr" : "dataset";
}

const char *sl_h5_type_name(sl_h5_type t)
{
    static const char *const n[] = {"-", "string", "string[]", "uint8[]", "int64", "float64"};
    return t <= SL_H5T_F64 ? n[t] : "?";
}

const char *sl_h5_need_name(sl_h5_need n)
{
    return n == SL_H5_REQ ? "required" : n == SL_H5_OPT ? "optional" : "pattern";
}

/* ---- writing ---- */

static const void *cmember(const void *elem, size_t off)
{
    return (const char *)elem + off;
}

static size_t cextent(const void *elem, size_t off)
{
    return *(const size_t *)cmember(elem, off);
}

/* A SET row whose member holds no value: left out. */
static int unset(const sl_h5_field *f, const void *elem)
{
    if (f->model.how != SL_H5M_SET)
        return 0;
    const void *p = cmember(elem, f->model.off);
    if (f->type != SL_H5T_STR)
        return *(const int64_t *)p <= 0;
    const char *s = *(char *const *)p;
    return !s || !*s;
}

/* Writes one field from the member its row names. */
static int put_row(sl_h5w *w, hid_t g, const sl_h5_field *f, const void *elem)
{
    const sl_h5_member *m = &f->model;
    const void *p = cmember(elem, m->off);
    switch (m->how) {
    case SL_H5M_MEM:
    case SL_H5M_SET:
        return f->type == SL_H5T_STR ? sl_h5w_str(w, g, f->name, *(char *const *)p)
                                     : sl_h5w_i64(w, g, f->name, *(const int64_t *)p);
    case SL_H5M_SRC:
        return sl_h5w_str(w, g, f->name, sl_source_name(*(const sl_source *)p));
    case SL_H5M_TAG: /* tag_bytes is written with the tag */
        return f->type == SL_H5T_STR
                   ? sl_h5w_tag(w, g, *(char *const *)p, cextent(elem, m->dim[0]))
                   : 0;
    case SL_H5M_ARR:
        if (f->type == SL_H5T_STRV)
            return sl_h5w_strv(w, g, f->name, *(char **const *)p, cextent(elem, m->dim[0]));
        if (f->type == SL_H5T_F64)
            return sl_h5w_f64_data(w, g, f->name, *(double *const *)p, cextent(elem, m->dim[0]),
                                   1, 1);
        return sl_h5w_i64_data(w, g, f->name, *(int64_t *const *)p, cextent(elem, m->dim[0]));
    case SL_H5M_MAT:
        return sl_h5w_f64_data(w, g, f->name, *(double *const *)p, cextent(elem, m->dim[0]),
                               cextent(elem, m->dim[1]), 2);
    default:
        return 0;
    }
}

int sl_h5w_rows(sl_h5w *w, hid_t g, sl_h5_obj place, unsigned kinds, const void *elem,
                sl_h5w_fn fn, void *ctx, int lacking)
{
    int rc = 0;
    EACH_ROW(i, place, !rc) {
        const sl_h5_field *f = &sl_h5_schema[i];
        if (!(kinds & 1u << f->kind) || f->model.how == SL_H5M_NO || unset(f, elem))
            continue;
        if (lacking) {
            htri_t has = H5Aexists(g, f->name);
            if (has < 0)
                return sl_h5w_fail(w, -EIO, "look up attribute", f->name);
            if (has)
                continue;
        }
        rc = f->model.how == SL_H5M_FN ? fn(w, g, (sl_h5_fid)i, elem, ctx) : put_row(w, g, f, elem);
    }
    return rc;
}

int sl_h5r_match_str(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *pat,
                     const char *name, char **out)
{
    sl_h5_field row = *pat;
    row.name = name;
    row.need = SL_H5_REQ;
    return sl_h5r_str(r, obj, path, &row, out);
}

/* The exact tag: tag_bytes when present, else attr tag. */
static int read_tag(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f_tag,
                    const sl_h5_field *f_bytes, char **tag, size_t *len)
{
    int rc = sl_h5r_u8v(r, g, path, f_bytes, tag, len);
    if (rc || *tag)
        return rc;
    char *t = NULL;
    rc = sl_h5r_str(r, g, path, f_tag, &t);
    if (rc)
        return rc;
    *tag = t;
    *len = strlen(t);
    return 0;
}

static int read_source(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f,
                       sl_source *src)
{
    char *s = NULL;
    int rc = sl_h5r_str(r, g, path, f, &s);
    if (!rc && (sl_source_parse(s, strlen(s), src) < 0 || *src == SL_SOURCE_NONE)) {
        sl_diag_add(r->diag, r->file, 0,
                    "%s/%s: unknown source \"%s\": expected full_api, marker_file or marker_api",
                    path, f->name, s);
        rc = -EINVAL;
    }
    free(s);
    return rc;
}

/* ---- reading (the two passes: h5_util.h) ---- */

static void *member(void *elem, size_t off)
{
    return (char *)elem + off;
}

static size_t *extent(void *elem, size_t off)
{
    return member(elem, off);
}

/* A place's tag_bytes row (read with its tag row). */
static const sl_h5_field *bytes_row(const sl_h5_field *tag)
{
    EACH_ROW(i, tag->obj, 1)
        if (SL_H5_ROW(i)->model.how == SL_H5M_TAG &&
            SL_H5_ROW(i)->type == SL_H5T_U8V)
            return SL_H5_ROW(i);
    return tag;
}

/* The first pass for one field. */
static int get_attr(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, void *elem)
{
    const sl_h5_member *m = &f->model;
    void *p = member(elem, m->off);
    switch (m->how) {
    case SL_H5M_MEM:
    case SL_H5M_SET:
        return f->type == SL_H5T_STR ? sl_h5r_str(r, g, path, f, p) : sl_h5r_i64(r, g, path, f, p);
    case SL_H5M_SRC:
        return read_source(r, g, path, f, p);
    case SL_H5M_TAG: /* tag_bytes is read with the tag */
        return f->type == SL_H5T_STR
                   ? read_tag(r, g, path, f, bytes_row(f), p, extent(elem, m->dim[0]))
                   : 0;
    case SL_H5M_ARR: { /* a string array (attributes hold no other) */
        size_t *n = extent(elem, m->dim[0]);
        return sl_h5r_strv(r, g, path, f, *n, p, n);
    }
    default:
        return 0;
    }
}

void sl_h5r_rows_unknown(sl_h5_obj place, void *elem)
{
    EACH_ROW(i, place, 1) {
        const sl_h5_field *f = SL_H5_ROW(i);
        if (f->model.how == SL_H5M_ARR || f->model.how == SL_H5M_MAT) {
            *extent(elem, f->model.dim[0]) = ANY;
            if (f->model.how == SL_H5M_MAT)
                *extent(elem, f->model.dim[1]) = ANY;
        }
    }
}

int sl_h5r_rows_attrs(sl_h5r *r, hid_t g, const char *path, sl_h5_obj place, void *elem,
                      sl_h5r_fn fn, void *ctx, sl_h5_opened *op)
{
    int rc = 0;
    EACH_ROW(i, place, !rc) {
        const sl_h5_field *f = SL_H5_ROW(i);
        const sl_h5_member *m = &f->model;
        if (m->how == SL_H5M_NO)
            continue;
        if (f->kind == SL_H5K_ATTR) {
            rc = m->how == SL_H5M_FN ? fn(r, g, path, (sl_h5_fid)i, elem, ctx)
                                     : get_attr(r, g, path, f, elem);
            continue;
        }
        size_t *d0 = extent(elem, m->dim[0]);
        size_t *d1 = m->how == SL_H5M_MAT ? extent(elem, m->dim[1]) : NULL;
        if (*d0 != ANY && (!d1 || *d1 != ANY))
            continue;
        hid_t d = sl_h5r_open_shape(r, g, path, f, d0, d1);
        if (d < 0)
            rc = -EINVAL;
        else if (op->n == (int)(sizeof op->at / sizeof op->at[0])) { /* a row table defect */
            H5Oclose(d);
            rc = -EINVAL;
        } else {
            op->at[op->n].id = (sl_h5_fid)i;
            op->at[op->n++].d = d;
        }
    }
    return rc;
}

void sl_h5r_rows_close(sl_h5_opened *op)
{
    for (int k = 0; k < op->n; k++)
        if (op->at[k].d >= 0)
            H5Oclose(op->at[k].d);
    op->n = 0;
}

int sl_h5r_rows_data(sl_h5r *r, hid_t g, const char *path, sl_h5_obj place, void *elem,
                     sl_h5_opened *op)
{
    int rc = 0;
    EACH_ROW(i, place, !rc) {
        const sl_h5_field *f = SL_H5_ROW(i);
        const sl_h5_member *m = &f->model;
        if (f->kind != SL_H5K_DATA || m->how == SL_H5M_NO)
            continue;
        size_t d0 = *extent(elem, m->dim[0]);
        size_t d1 = m->how == SL_H5M_MAT ? *extent(elem, m->dim[1]) : 0;
        void *dst = *(void **)member(elem, m->off);
        hid_t d = -1;
        for (int k = 0; k < op->n; k++)
            if (op->at[k].id == (sl_h5_fid)i) {
                d = op->at[k].d;
                op->at[k].d = -1;
            }
        rc = d >= 0 ? sl_h5r_read_open(r, d, path, f, d0, d1, dst)
                    : sl_h5r_data(r, g, path, f, d0, d1, dst);
    }
    sl_h5r_rows_close(op);
    return rc;
}

void sl_h5r_rows_carry(sl_h5_obj place, void *dst, void *src)
{
    EACH_ROW(i, place, 1) {
        const sl_h5_field *f = SL_H5_ROW(i);
        const sl_h5_member *m = &f->model;
        if (f->kind != SL_H5K_ATTR)
            continue;
        void *to = member(dst, m->off), *from = member(src, m->off);
        if (m->how == SL_H5M_SRC)
            *(sl_source *)to = *(sl_source *)from;
        else if ((m->how == SL_H5M_MEM || m->how == SL_H5M_SET) && f->type == SL_H5T_I64)
            *(int64_t *)to = *(int64_t *)from;
        else if ((m->how == SL_H5M_MEM || m->how == SL_H5M_SET) && *(char **)from) {
            free(*(char **)to);
            *(char **)to = *(char **)from;
            *(char **)from = NULL;
        } else if (m->how == SL_H5M_ARR && *(char ***)from) {
            sl_h5r_free_names(*(char ***)to, *extent(dst, m->dim[0]));
            *(char ***)to = *(char ***)from;
            *(char ***)from = NULL;
        }
    }
}

void sl_h5r_rows_drop(sl_h5_obj place, void *elem)
{
    EACH_ROW(i, place, 1) {
        const sl_h5_field *f = SL_H5_ROW(i);
        const sl_h5_member *m = &f->model;
        if (f->kind != SL_H5K_ATTR)
            continue;
        if (f->type == SL_H5T_STR && m->how != SL_H5M_SRC && m->how != SL_H5M_FN) {
            free(*(char **)member(elem, m->off));
            *(char **)member(elem, m->off) = NULL;
        } else if (m->how == SL_H5M_ARR && *(char ***)member(elem, m->off)) {
            sl_h5r_free_names(*(char ***)member(elem, m->off), *extent(elem, m->dim[0]));
            *(char ***)member(elem, m->off) = NULL;
        }
    }
}

