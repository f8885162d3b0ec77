/* Internal header: not installed. Names of region groups in the result file
 * and the text form of tags (docs/FORMAT.md, "Names of region groups").
 * Rule: a tag that is valid UTF-8, not empty, not "." or "..", has no '/',
 * no control byte, no '%', and occurs in one group only is its own name.
 * Otherwise the name is the tag with each such byte written as %XX (upper-case
 * hex; '%' itself as %25, a leading '.' as %2E, "" as "%"), followed by
 * "%g<group_id>" when the tag occurs in more than one group. The rule is
 * reversible: sl_name_decode gives back the tag and group. */
#ifndef SL_NAMES_H
#define SL_NAMES_H

#include <stddef.h>
#include <stdint.h>

int sl_utf8_valid(const char *s, size_t len);

/* Tag as displayable UTF-8: stray bytes (not valid UTF-8) as "\xHH";
 * a backslash stays a backslash. Newly allocated, NULL on ENOMEM. */
char *sl_tag_display(const char *tag, size_t len);

/* Group name for (tag, group); multi_group: the tag occurs in more than one
 * group of the same file. Newly allocated, NULL on ENOMEM. */
char *sl_name_encode(const char *tag, size_t len, int64_t group_id, int multi_group);

/* Inverse of sl_name_encode. *tag is newly allocated (NUL-terminated, *len
 * bytes); *group_id is -1 when the name has no group suffix. 0 or -EINVAL. */
int sl_name_decode(const char *name, char **tag, size_t *len, int64_t *group_id);

/* The names of one rank's timing regions (docs/FORMAT.md, "Names of
 * region groups"), as scope-profiler names its regions: the tag itself with
 * '/' written as '|'. A tag that cannot be a name ("", ".", "..", not valid
 * UTF-8), or whose '|' form is another tag's name, takes its escaped form
 * (sl_name_encode); a name still taken gets a '%' more. Tags without '/'
 * keep their own name whatever the others are. out[i] newly allocated;
 * 0 or -ENOMEM (then out[] all NULL). */
int sl_names_sp(const char *const *tags, const size_t *lens, size_t n, char **out);

#endif
