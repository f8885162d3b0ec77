/* The writer's proof (core/mac.h): the key the shim gives its helpers, and
 * the check of a result the writer named, made before anything the result
 * replaces (the rescue file, the journal) is removed or a "wrote" line
 * printed: a writer of someone else's cannot make the shim drop its data
 * or say something false. Async-signal-safe (the signal handler checks
 * too): no allocation, no stdio. */
#include "spawn.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static sl_mac_key key;
static int have_key;
/* "SCOPE_LIKWID_WRITE_KEY=<hex>", "" without a key */
static char key_env[sizeof SL_WRITE_KEY_ENV + SL_MAC_HEX + 1];

void sl_proof_key_make(void)
{
    have_key = sl_mac_random(key.k, sizeof key.k) == 0;
    key_env[0] = '\0';
    if (!have_key)
        return;     /* no randomness: the file itself is checked, without a proof */
    size_t n = sizeof SL_WRITE_KEY_ENV - 1;
    memcpy(key_env, SL_WRITE_KEY_ENV, n);
    key_env[n] = '=';
    sl_mac_key_hex(&key, key_env + n + 1);
}

const char *sl_proof_env(void)
{
    return key_env;
}

/* The tag of the last proof line in out: 1, else 0. */
static int find_tag(const char *out, size_t len, uint64_t *tag)
{
    const size_t plen = sizeof SL_PROOF_PREFIX - 1, whole = plen + SL_MAC_TAG_HEX;
    int found = 0;
    for (size_t i = 0; out && i + whole <= len; i++) {
        if ((i > 0 && out[i - 1] != '\n') || memcmp(out + i, SL_PROOF_PREFIX, plen) != 0)
            continue;
        uint64_t t;
        if ((i + whole == len || out[i + whole] == '\n') && sl_mac_tag_parse(out + i + plen, &t) == 0) {
            *tag = t;
            found = 1;
        }
    }
    return found;
}

/* The checks on an open file; any_owner: it is the file this process made
 * for the result and holds (sl_proof_check_fd), whoever owns it now. */
static const char *check(int fd, const char *out, size_t len, int any_owner)
{
    uint64_t tag = 0;
    if (have_key && !find_tag(out, len, &tag))
        return "the writer gave no proof of it";
    struct stat st;
    char sig[8];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return "it is not a regular file";
    if (!any_owner && st.st_uid != geteuid())
        return "it belongs to another user";
    if (pread(fd, sig, sizeof sig, 0) != (ssize_t)sizeof sig ||
        memcmp(sig, SL_HDF5_SIGNATURE, sizeof sig) != 0)
        return "it is not an HDF5 file";
    if (have_key && !sl_mac_equal(sl_mac_file(&key, &st), tag))
        return "the writer's proof does not match it";
    return NULL;
}

const char *sl_proof_check(const char *path, const char *out, size_t len)
{
    if (have_key && !find_tag(out, len, &(uint64_t){0}))
        return "the writer gave no proof of it";
    int fd = sl_at_open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
    if (fd < 0)
        return "it cannot be opened as a regular file";
    const char *why = check(fd, out, len, 0);
    close(fd);
    return why;
}

const char *sl_proof_check_fd(int fd, const char *out, size_t len)
{
    return check(fd, out, len, 1);
}
