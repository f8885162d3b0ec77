/* Internal header: not installed. The value of a boolean SCOPE_LIKWID_*
 * variable, one parser for the shim and the tools: the words the man pages
 * document (1, yes, true, on; 0, no, false, off; in any case), anything
 * else (the empty value included) one warning and the default. No
 * allocation, no stdio: the shim asks before its configuration is loaded. */
#ifndef SL_BOOL_WORD_H
#define SL_BOOL_WORD_H

#include "why.h"

#define SL_BOOL_WORDS "1/0, yes/no, true/false or on/off"

/* 1 or 0 for one of the words, -EINVAL for anything else (NULL too). */
int sl_bool_word(const char *s);

/* Room for the warning: the name, the clipped value and the words. */
#define SL_BOOL_WARN_BUF (SL_CLIP_BUF + 192)

/* The variable name's value from its text value (NULL: unset): def when
 * unset, the word's value, else def with the warning, one line without
 * prefix, in warn ("" otherwise):
 *   NAME='VALUE' not understood: expected 1/0, yes/no, true/false or
 *   on/off; using DEF
 * VALUE clipped (sl_clip). */
int sl_bool_value(const char *name, const char *value, int def, char warn[SL_BOOL_WARN_BUF]);

#endif
