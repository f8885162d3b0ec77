/* The writer's proof (core/mac.h): the key the shim gives its helpers, and
 * the check of a result the writer named, made before anything the result
 * replaces (the rescue file, the journal) is removed or a "wrote" line
 * printed: a writer of someone else's cannot make the shim drop its data
 * or say something false. Async-signal-safe (the signal handler checks
 * too): no allocation, no stdio. */
#include "shim.h"
#include "mac.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
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

const char *sl_proof_check(const char *path, const char *out, size_t len)
{
    uint64_t tag = 0;
    if (have_key && !find_tag(out, len, &tag))
        return "the writer gave no proof of it";
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return "it cannot be opened as a regular file";
    struct stat st;
    char sig[8];
    const char *why = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "it is not a regular file";
    else if (st.st_uid != geteuid())
        why = "it belongs to another user";
    else if (pread(fd, sig, sizeof sig, 0) != (ssize_t)sizeof sig ||
             memcmp(sig, SL_HDF5_SIGNATURE, sizeof sig) != 0)
        why = "it is not an HDF5 file";
    else if (have_key && !sl_mac_equal(sl_mac_file(&key, &st), tag))
        why = "the writer's proof does not match it";
    close(fd);
    return why;
}
