/* Internal header: not installed. Whole-string decimal integers, for every
 * caller that parses a number from the user or a file (CLI options, filters),
 * and hexadecimal digits (keys, the wire format's doubles). */
#ifndef SL_PARSE_INT_H
#define SL_PARSE_INT_H

/* Parses a decimal int64 (the whole string, no blanks). 0, or -EINVAL for an
 * empty string, trailing characters or a value out of range. */
int sl_parse_i64(const char *s, long long *out);

/* The value of one hexadecimal digit (either case), -1 for any other
 * character. */
int sl_hex_digit(char c);

#endif
