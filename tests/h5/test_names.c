/* Names of region groups (core/model/names.h) and event labels (core/model/labels.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "labels.h"
#include "names.h"

#define V(s) sl_utf8_valid(s, sizeof(s) - 1)

Test(utf8, accepts_valid_text)
{
    cr_expect(V(""));
    cr_expect(V("plain ascii"));
    cr_expect(V("caf\xc3\xa9"));                 /* U+00E9 */
    cr_expect(V("\xe2\x82\xac"));                /* U+20AC */
    cr_expect(V("\xf0\x9f\x98\x80"));            /* U+1F600 */
    cr_expect(V("\xf4\x8f\xbf\xbf"));            /* U+10FFFF */
    cr_expect(V("\xed\x9f\xbf"));                /* U+D7FF, just below surrogates */
    cr_expect(V("\xee\x80\x80"));                /* U+E000, just above */
}

Test(utf8, rejects_invalid_text)
{
    cr_expect_not(V("\xff"));
    cr_expect_not(V("\x80"));                    /* lone continuation */
    cr_expect_not(V("\xc0\x80"));                /* overlong NUL */
    cr_expect_not(V("\xc1\xbf"));                /* overlong */
    cr_expect_not(V("\xe0\x80\x80"));            /* overlong 3-byte */
    cr_expect_not(V("\xe0\x9f\xbf"));
    cr_expect_not(V("\xf0\x80\x80\x80"));        /* overlong 4-byte */
    cr_expect_not(V("\xf0\x8f\xbf\xbf"));
    cr_expect_not(V("\xed\xa0\x80"));            /* U+D800 surrogate */
    cr_expect_not(V("\xed\xbf\xbf"));            /* U+DFFF surrogate */
    cr_expect_not(V("\xf4\x90\x80\x80"));        /* U+110000 */
    cr_expect_not(V("\xf5\x80\x80\x80"));
    cr_expect_not(V("\xe2\x82"));                /* truncated */
    cr_expect_not(V("\xc3"));
    cr_expect_not(V("a\xc3z"));
    cr_expect_not(sl_utf8_valid("a\0b", 3));     /* NUL cannot be stored */
}

static void expect_display(const char *tag, size_t len, const char *want)
{
    char *s = sl_tag_display(tag, len);
    cr_assert_not_null(s);
    cr_expect_str_eq(s, want);
    free(s);
}

Test(display, stray_bytes_as_hex)
{
    expect_display("\xff\xfe" "abc", 5, "\\xFF\\xFEabc");
    expect_display("back\\slash", 10, "back\\slash");
    expect_display("caf\xc3\xa9", 5, "caf\xc3\xa9");
    expect_display("\xe2\x82", 2, "\\xE2\\x82");
    expect_display("\xe2\x82\xac\xed\xa0\x80", 6, "\xe2\x82\xac\\xED\\xA0\\x80");
    expect_display("", 0, "");
}

static void expect_name(const char *tag, size_t len, int64_t gid, int multi, const char *want)
{
    char *s = sl_name_encode(tag, len, gid, multi);
    cr_assert_not_null(s);
    cr_expect_str_eq(s, want, "tag of %zu bytes: got \"%s\", want \"%s\"", len, s, want);
    free(s);
}

#define N(tag, gid, multi, want) expect_name(tag, sizeof(tag) - 1, gid, multi, want)

Test(names, plain_tags_are_their_own_name)
{
    N("solve-step", 0, 0, "solve-step");
    N("io phase", 3, 0, "io phase");
    N(" lead and trail ", 0, 0, " lead and trail ");
    N("a|b", 0, 0, "a|b");
    N("a.b.", 0, 0, "a.b.");
    N("caf\xc3\xa9", 0, 0, "caf\xc3\xa9");
    N("back\\slash", 0, 0, "back\\slash");
}

Test(names, escapes)
{
    N("", 0, 0, "%");
    N(".", 0, 0, "%2E");
    N("..", 0, 0, "%2E.");
    N(".hidden", 0, 0, "%2Ehidden");
    N("a/b", 0, 0, "a%2Fb");
    N("x%y", 0, 0, "x%25y");
    N("%", 0, 0, "%25");
    N("%g1", 0, 0, "%25g1");
    N("tab\there", 0, 0, "tab%09here");
    N("del\x7f", 0, 0, "del%7F");
    N("\xff\xfe" "abc", 0, 0, "%FF%FEabc");
    N("ok\xc3\xa9/\xed\xa0\x80", 0, 0, "ok\xc3\xa9%2F%ED%A0%80");
}

Test(names, multi_group_suffix)
{
    N("solve-step", 0, 1, "solve-step%g0");
    N("solve-step", 12, 1, "solve-step%g12");
    N("", 2, 1, "%%g2");
    N("a/b", 1, 1, "a%2Fb%g1");
    N("x", -1, 1, "x%g-1");
}

static void roundtrip(const char *tag, size_t len, int64_t gid, int multi)
{
    char *name = sl_name_encode(tag, len, gid, multi);
    cr_assert_not_null(name);
    cr_expect(sl_utf8_valid(name, strlen(name)), "name not UTF-8");
    cr_expect_null(strchr(name, '/'));
    cr_expect(strcmp(name, ".") && strcmp(name, "..") && *name);
    char *back = NULL;
    size_t blen = 0;
    int64_t bgid = 99;
    cr_assert_eq(sl_name_decode(name, &back, &blen, &bgid), 0, "decode \"%s\"", name);
    cr_expect_eq(blen, len);
    cr_expect(memcmp(back, tag, len) == 0, "decode(encode(tag)) differs for \"%s\"", name);
    cr_expect_eq(bgid, multi ? gid : -1);
    free(back);
    free(name);
}

Test(names, decode_inverts_encode)
{
    for (size_t i = 0; i < fixture_ntags; i++)
        for (int multi = 0; multi < 2; multi++)
            roundtrip(fixture_tags[i], fixture_tag_lens[i], 7, multi);
    /* random byte strings, no NUL (tags cannot hold one) */
    unsigned long long x = 88172645463325252ULL;
    char tag[24];
    for (int n = 0; n < 3000; n++) {
        size_t len = (size_t)(n % 24);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            unsigned char c = (unsigned char)(x % 255 + 1);
            /* bias towards the bytes the rule cares about */
            if (n % 3 == 0)
                c = (unsigned char)"./%g0a\xc3\xa9\xff"[x % 10];
            tag[i] = (char)c;
        }
        roundtrip(tag, len, (int64_t)(n % 5), n % 2);
    }
}

Test(names, decode_rejects_other_spellings)
{
    const char *bad[] = {"%2", "%zz", "%2e", "%41", "a%g", "a%gx", "a%g1x", "%g1", ".", "..",
                         "a/b", "%25%", "%%", "%%g", "x%g01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *tag = NULL;
        size_t len;
        int64_t gid;
        cr_expect_eq(sl_name_decode(bad[i], &tag, &len, &gid), -EINVAL, "accepted \"%s\"", bad[i]);
        free(tag);
    }
}

Test(names, fixture_names_are_distinct)
{
    char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < fixture_ntags; i++) {
        names[n++] = sl_name_encode(fixture_tags[i], fixture_tag_lens[i], 0, 0);
        names[n++] = sl_name_encode(fixture_tags[i], fixture_tag_lens[i], 0, 1);
        names[n++] = sl_name_encode(fixture_tags[i], fixture_tag_lens[i], 1, 1);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            cr_expect_str_neq(names[i], names[j]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

/* ---- labels ---- */

static sl_region *named_region(sl_likwid *lw, size_t e, const char *const *ev,
                               const char *const *ctr)
{
    sl_region *r = sl_likwid_add(lw, "t", 1, 0, "G", SL_SOURCE_FULL_API, 2, e, 0, 1);
    cr_assert_not_null(r);
    for (size_t i = 0; i < e; i++) {
        cr_assert_eq(sl_set_string(&r->event_names[i], ev[i]), 0);
        cr_assert_eq(sl_set_string(&r->counter_names[i], ctr[i]), 0);
    }
    return r;
}

static void expect_labels(const sl_region *r, const char *const *want)
{
    char **l = sl_event_labels(r);
    cr_assert_not_null(l);
    for (size_t i = 0; i < r->nevents; i++)
        cr_expect_str_eq(l[i], want[i], "label %zu", i);
    sl_labels_free(l, r->nevents);
}

Test(labels, unique_names_are_labels)
{
    sl_likwid lw;
    sl_likwid_init(&lw);
    const char *ev[] = {"INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE"};
    const char *ctr[] = {"FIXC0", "FIXC1"};
    expect_labels(named_region(&lw, 2, ev, ctr), ev);
    sl_likwid_free(&lw);
}

Test(labels, repeated_names_get_counter_or_index)
{
    sl_likwid lw;
    sl_likwid_init(&lw);
    const char *ev[] = {"CAS_COUNT_RD", "CAS_COUNT_RD", "X", "X", "Y", "X"};
    const char *ctr[] = {"MBOX0C0", "MBOX1C0", "", "", "PMC0", "PMC3"};
    const char *want[] = {"CAS_COUNT_RD:MBOX0C0", "CAS_COUNT_RD:MBOX1C0", "X#2", "X#3", "Y", "X:PMC3"};
    expect_labels(named_region(&lw, 6, ev, ctr), want);
    sl_likwid_free(&lw);
}

Test(labels, no_names_give_event_index)
{
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_region *r = sl_likwid_add(&lw, "t", 1, 0, "G", SL_SOURCE_MARKER_FILE, 1, 3, 0, 0);
    cr_assert_not_null(r);
    const char *want[] = {"event_0", "event_1", "event_2"};
    expect_labels(r, want);
    sl_likwid_free(&lw);
}

Test(labels, no_events_no_labels)
{
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_region *r = sl_likwid_add(&lw, "t", 1, 0, "G", SL_SOURCE_FULL_API, 1, 0, 0, 1);
    cr_assert_not_null(r);
    cr_expect_null(sl_event_labels(r));
    sl_likwid_free(&lw);
}

/* One rank's timing names as scope-profiler names its regions (sl_names_sp). */
static void expect_sp_names(const char *const *tags, size_t n, const char *const *want)
{
    size_t lens[16];
    char *out[16];
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen(tags[i]);
    cr_assert_eq(sl_names_sp(tags, lens, n, out), 0);
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(out[i], want[i], "tag \"%s\"", tags[i]);
        free(out[i]);
    }
}

Test(names_sp, verbatim_with_slash_as_bar)
{
    const char *tags[] = {"50%", ".hidden", "a/b", "io phase", "caf\xc3\xa9", "x%2Fy", "%g1"};
    const char *want[] = {"50%", ".hidden", "a|b", "io phase", "caf\xc3\xa9", "x%2Fy", "%g1"};
    expect_sp_names(tags, 7, want);
}

Test(names_sp, what_cannot_be_a_name_is_escaped)
{
    const char *tags[] = {"", ".", "..", "\xff" "x"};
    const char *want[] = {"%", "%2E", "%2E.", "%FFx"};
    expect_sp_names(tags, 4, want);
}

Test(names_sp, clashes_keep_the_tag_that_is_its_own_name)
{
    /* "a|b" is its own name, so "a/b" (listed first) takes the escaped form;
     * "." escapes to "%2E", which the tag "%2E" already is */
    const char *tags[] = {"a/b", "a|b", ".", "%2E", "x/y|z", "x|y/z"};
    const char *want[] = {"a%2Fb", "a|b", "%2E%", "%2E", "x|y|z", "x|y%2Fz"};
    expect_sp_names(tags, 6, want);
}

Test(names_sp, none)
{
    cr_expect_eq(sl_names_sp(NULL, NULL, 0, NULL), 0);
}
