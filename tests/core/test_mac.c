/* The MAC behind the helper host's handshake and the writer's proof
 * (core/trust/mac.c): SipHash-2-4's published test vectors, and the proofs'
 * parts. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "helper_host.h"
#include "mac.h"

static sl_mac_key ref_key(void)
{
    sl_mac_key k;
    for (int i = 0; i < SL_MAC_KEY_BYTES; i++)
        k.k[i] = (uint8_t)i;
    return k;
}

/* The reference implementation's vectors: key 00..0f, message 00..(n-1). */
Test(mac, siphash_reference_vectors)
{
    sl_mac_key k = ref_key();
    uint8_t msg[16];
    for (int i = 0; i < 16; i++)
        msg[i] = (uint8_t)i;
    cr_assert_eq(sl_mac(&k, msg, 0), 0x726fdb47dd0e0e31ULL);
    cr_assert_eq(sl_mac(&k, msg, 1), 0x74f839c593dc67fdULL);
    cr_assert_eq(sl_mac(&k, msg, 8), 0x93f5f5799a932462ULL);
    cr_assert_eq(sl_mac(&k, msg, 15), 0xa129ca6149be45e5ULL);
}

Test(mac, hex_round_trips)
{
    sl_mac_key k = ref_key(), back;
    char hex[SL_MAC_HEX + 1];
    sl_mac_key_hex(&k, hex);
    cr_assert_str_eq(hex, "000102030405060708090a0b0c0d0e0f");
    cr_assert_eq(sl_mac_key_parse(hex, &back), 0);
    cr_assert_eq(memcmp(&k, &back, sizeof k), 0);
    cr_assert_eq(sl_mac_key_parse("000102030405060708090a0b0c0d0e0", &back), -EINVAL, "short");
    cr_assert_eq(sl_mac_key_parse("000102030405060708090a0b0c0d0e0f0", &back), -EINVAL, "long");
    cr_assert_eq(sl_mac_key_parse("0001020304050607080g0a0b0c0d0e0f", &back), -EINVAL, "g");
    char tag[SL_MAC_TAG_HEX + 1];
    uint64_t t = 0;
    sl_mac_tag_hex(0xa129ca6149be45e5ULL, tag);
    cr_assert_str_eq(tag, "a129ca6149be45e5");
    cr_assert_eq(sl_mac_tag_parse(tag, &t), 0);
    cr_assert_eq(t, 0xa129ca6149be45e5ULL);
    cr_assert_eq(sl_mac_tag_parse("a129ca6149be45e", &t), -EINVAL, "15 digits");
}

/* Each side's tag is of its own kind and covers both nonces; the file's
 * proof covers the file's identity and owner. */
Test(mac, tags_bind_what_they_cover)
{
    sl_mac_key k = ref_key(), other = ref_key();
    other.k[0] ^= 1;
    uint8_t a[SL_HOST_NONCE] = {1}, b[SL_HOST_NONCE] = {2};
    uint64_t host = sl_host_tag(&k, 1, a, b), shim = sl_host_tag(&k, 0, a, b);
    cr_assert_neq(host, shim, "the host's tag is not the shim's");
    cr_assert_neq(host, sl_host_tag(&k, 1, b, a), "the nonces' order counts");
    cr_assert_neq(host, sl_host_tag(&other, 1, a, b), "another key");
    cr_assert_eq(host, sl_host_tag(&k, 1, a, b));
    struct stat st = {.st_dev = 1, .st_ino = 2, .st_size = 3, .st_uid = 4};
    uint64_t f = sl_mac_file(&k, &st);
    st.st_uid = 5;
    cr_assert_neq(f, sl_mac_file(&k, &st), "another owner");
    st.st_uid = 4;
    st.st_ino = 7;
    cr_assert_neq(f, sl_mac_file(&k, &st), "another file");
    st.st_ino = 2;
    cr_assert_eq(f, sl_mac_file(&k, &st));
    cr_assert_neq(f, sl_mac_file(&other, &st), "another key");
}

Test(mac, random_keys_differ)
{
    sl_mac_key a, b;
    cr_assert_eq(sl_mac_random(a.k, sizeof a.k), 0);
    cr_assert_eq(sl_mac_random(b.k, sizeof b.k), 0);
    cr_assert_neq(memcmp(&a, &b, sizeof a), 0);
}
