/* doc_rules.sh's fixture (never compiled): one variable described twice,
 * one not at all. */
const char *twice(void) { return getenv("SCOPE_LIKWID_TWICE"); }
const char *missing(void) { return getenv("SCOPE_LIKWID_MISSING"); }
