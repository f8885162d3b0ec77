/* Internal header: not installed. LIKWID's real C marker functions, found
 * with dlsym(RTLD_NEXT) on first use. A member is NULL when the application
 * is not linked with LIKWID: callers then do the shim's part only. The
 * Fortran entry points are never used: they call the C ones through the PLT
 * and would come back into our wrappers. */
#ifndef SL_SHIM_REAL_H
#define SL_SHIM_REAL_H

typedef struct sl_real_api {
    void (*init)(void);
    void (*thread_init)(void);
    int (*register_region)(const char *);
    int (*start)(const char *);
    int (*stop)(const char *);
    int (*reset)(const char *);
    void (*get)(const char *, int *, double *, double *, int *);
    void (*next_group)(void);
    void (*close)(void);
} sl_real_api;

/* Resolved once, thread-safely; never NULL itself. */
const sl_real_api *sl_real(void);

#endif
