/* The schema table (schema.h), built from SL_H5_SCHEMA: one row per field. */
#include "schema.h"

const sl_h5_field sl_h5_schema[SL_H5F_COUNT] = {
#define SL_H5_X(id, obj, name, kind, type, rank, shape, need, since)                      \
    [SL_H5F_##id] = {SL_H5N_##name, shape, SL_H5O_##obj, SL_H5K_##kind, SL_H5T_##type, rank, \
                     SL_H5_##need, since},
    SL_H5_SCHEMA(SL_H5_X)
#undef SL_H5_X
};

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
