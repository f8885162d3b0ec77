/* SipHash-2-4 (Aumasson and Bernstein), written from its specification,
 * and the random keys it takes (see mac.h). */
#include "mac.h"
#include "parse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

#define SIPROUND(v0, v1, v2, v3) \
    do { \
        v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32); \
        v2 += v3; v3 = rotl(v3, 16); v3 ^= v2; \
        v0 += v3; v3 = rotl(v3, 21); v3 ^= v0; \
        v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32); \
    } while (0)

uint64_t sl_mac(const sl_mac_key *key, const void *data, size_t n)
{
    const uint8_t *p = data;
    uint64_t k0 = le64(key->k), k1 = le64(key->k + 8);
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    size_t whole = n - n % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = le64(p + i);
        v3 ^= m;
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    uint64_t last = (uint64_t)(n & 0xff) << 56;
    for (size_t i = 0; i < n % 8; i++)
        last |= (uint64_t)p[whole + i] << (8 * i);
    v3 ^= last;
    SIPROUND(v0, v1, v2, v3);
    SIPROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xff;
    for (int i = 0; i < 4; i++)
        SIPROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

int sl_mac_random(void *buf, size_t n)
{
    uint8_t *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(p + got, n - got, GRND_NONBLOCK);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        break;      /* no getrandom (old kernel, a seccomp filter), or not yet seeded */
    }
    if (got == n)
        return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return got == n ? 0 : -EIO;
}

static const char hexdigits[] = "0123456789abcdef";

void sl_mac_key_hex(const sl_mac_key *key, char *out)
{
    for (int i = 0; i < SL_MAC_KEY_BYTES; i++) {
        out[2 * i] = hexdigits[key->k[i] >> 4];
        out[2 * i + 1] = hexdigits[key->k[i] & 15];
    }
    out[SL_MAC_HEX] = '\0';
}

int sl_mac_key_parse(const char *hex, sl_mac_key *key)
{
    for (int i = 0; i < SL_MAC_KEY_BYTES; i++) {
        int a = sl_hex_digit(hex[2 * i]), b = a < 0 ? -1 : sl_hex_digit(hex[2 * i + 1]);
        if (b < 0)
            return -EINVAL;
        key->k[i] = (uint8_t)(a << 4 | b);
    }
    return hex[SL_MAC_HEX] == '\0' ? 0 : -EINVAL;
}

void sl_mac_tag_hex(uint64_t tag, char *out)
{
    for (int i = 0; i < SL_MAC_TAG_HEX; i++)
        out[i] = hexdigits[(tag >> (60 - 4 * i)) & 15];
    out[SL_MAC_TAG_HEX] = '\0';
}

int sl_mac_tag_parse(const char *s, uint64_t *tag)
{
    uint64_t v = 0;
    for (int i = 0; i < SL_MAC_TAG_HEX; i++) {
        int d = sl_hex_digit(s[i]);
        if (d < 0)
            return -EINVAL;
        v = v << 4 | (uint64_t)d;
    }
    *tag = v;
    return 0;
}

int sl_mac_equal(uint64_t a, uint64_t b)
{
    volatile uint64_t d = a ^ b;
    return d == 0;
}

uint64_t sl_mac_file(const sl_mac_key *key, const struct stat *st)
{
    uint64_t msg[5] = {0x65746f7277206c73ULL /* "sl wrote" */, (uint64_t)st->st_dev,
                       (uint64_t)st->st_ino, (uint64_t)st->st_size, (uint64_t)st->st_uid};
    uint8_t bytes[sizeof msg];
    for (size_t i = 0; i < sizeof msg / sizeof msg[0]; i++)
        for (int b = 0; b < 8; b++)
            bytes[8 * i + (size_t)b] = (uint8_t)(msg[i] >> (8 * b));
    return sl_mac(key, bytes, sizeof bytes);
}
