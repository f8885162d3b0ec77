/* Internal header: not installed. A keyed message authentication code
 * (SipHash-2-4, 64-bit tag, 128-bit key) and the random keys it takes:
 * the proofs that `scope-likwid run`'s helper host and the shim give each
 * other, and the writer's proof that it wrote the file it names
 * (docs/SECURITY.md). libc only, no allocation, async-signal-safe: the
 * shim's signal handler checks a proof too. */
#ifndef SL_MAC_H
#define SL_MAC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define SL_MAC_KEY_BYTES 16
#define SL_MAC_HEX (2 * SL_MAC_KEY_BYTES)     /* a key in hex, without NUL */
#define SL_MAC_TAG_HEX 16                      /* a tag in hex, without NUL */

typedef struct sl_mac_key {
    uint8_t k[SL_MAC_KEY_BYTES];
} sl_mac_key;

/* SipHash-2-4 of the n bytes at p under key. */
uint64_t sl_mac(const sl_mac_key *key, const void *p, size_t n);

/* Fills buf with n unpredictable bytes (getrandom, else /dev/urandom):
 * 0, or -errno when neither gives them. */
int sl_mac_random(void *buf, size_t n);

/* A key as 32 lower-case hex digits into out (cap >= SL_MAC_HEX + 1). */
void sl_mac_key_hex(const sl_mac_key *key, char *out);

/* Parses exactly 32 hex digits: 0, or -EINVAL. */
int sl_mac_key_parse(const char *hex, sl_mac_key *key);

/* A tag as 16 hex digits into out (cap >= SL_MAC_TAG_HEX + 1). */
void sl_mac_tag_hex(uint64_t tag, char *out);

/* Parses exactly 16 hex digits at s (s need not end there): 0, or -EINVAL. */
int sl_mac_tag_parse(const char *s, uint64_t *tag);

/* Compares two tags without an early exit: 1 when equal. */
int sl_mac_equal(uint64_t a, uint64_t b);

/* ---- the writer's proof ----
 * The shim gives its helpers a key of its own in SL_WRITE_KEY_ENV. The
 * writer, once the result is in place, prints SL_PROOF_PREFIX and the tag
 * of the file (sl_mac_file: its device, inode, size and owner) on a line
 * of its own before the line naming it; the shim removes what the result
 * replaces only when the file it was named is a regular file of its user,
 * starts with HDF5's signature and carries that tag. */
#define SL_WRITE_KEY_ENV "SCOPE_LIKWID_WRITE_KEY"
#define SL_PROOF_PREFIX "proof "
#define SL_HDF5_SIGNATURE "\211HDF\r\n\032\n"     /* 8 bytes */

uint64_t sl_mac_file(const sl_mac_key *key, const struct stat *st);

#endif
