#ifndef SL_NATURAL_H
#define SL_NATURAL_H

/* <0, 0, >0 as a sorts before, with or after b when digit runs compare as
 * numbers ("r2" before "r10"; leading zeros skipped, so "r02" and "r2" are
 * equal: callers break the tie with strcmp). */
int sl_natural_cmp(const char *a, const char *b);

#endif
