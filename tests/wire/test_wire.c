/* The wire format: exact round trips, truncation at every byte, hostile
 * input (garbage, wrong magic, huge counts), write errors. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wire.h"
#include "wire_helpers.h"

/* Decodes a copy of exactly len bytes (no NUL after it), so reading past the
 * end would be caught by sanitizers and valgrind. */
static int decode_run(const char *buf, size_t len, sl_run *out, sl_diag *d)
{
    char *copy = malloc(len ? len : 1);
    cr_assert(copy);
    memcpy(copy, buf, len);
    cr_assert(sl_run_init(out) == 0);
    sl_diag_init(d);
    int rc = sl_wire_read_run(copy, len, "in", out, d);
    free(copy);
    return rc;
}

static int decode_likwid(const char *buf, size_t len, sl_likwid *out, sl_diag *d)
{
    char *copy = malloc(len ? len : 1);
    cr_assert(copy);
    memcpy(copy, buf, len);
    sl_likwid_init(out);
    sl_diag_init(d);
    int rc = sl_wire_read_likwid(copy, len, "in", out, d);
    free(copy);
    return rc;
}

/* A failed decode must leave exactly one "in:LINE: ...: expected ..." line. */
static void expect_one_defect(const sl_diag *d, const char *needle)
{
    cr_assert_eq(d->count, 1, "want one diagnostic, got %zu", d->count);
    cr_assert_eq(strncmp(d->lines[0], "in:", 3), 0, "%s", d->lines[0]);
    cr_expect(strstr(d->lines[0], ": expected ") != NULL, "%s", d->lines[0]);
    if (needle)
        cr_expect(strstr(d->lines[0], needle) != NULL, "'%s' lacks '%s'", d->lines[0], needle);
}

Test(wire, rich_run_round_trip)
{
    sl_run a, b;
    build_rich_run(&a);
    size_t len;
    int rc;
    char *buf = encode_run(&a, &len, &rc);
    cr_assert_eq(rc, 0);
    cr_assert(sl_wire_is_wire(buf, len));
    sl_diag d;
    rc = decode_run(buf, len, &b, &d);
    cr_assert_eq(rc, 0, "%s", d.kept ? d.lines[0] : "");
    cr_expect_eq(d.count, 0);
    expect_run_equal(&a, &b);
    /* re-encoding gives the same bytes: the encoding is canonical */
    size_t len2;
    char *buf2 = encode_run(&b, &len2, &rc);
    cr_assert_eq(rc, 0);
    cr_expect(len == len2 && memcmp(buf, buf2, len) == 0);
    free(buf);
    free(buf2);
    sl_diag_free(&d);
    sl_run_free(&a);
    sl_run_free(&b);
}

Test(wire, empty_run_round_trip)
{
    sl_run a, b;
    cr_assert(sl_run_init(&a) == 0);
    size_t len;
    int rc;
    char *buf = encode_run(&a, &len, &rc);
    cr_assert_eq(rc, 0);
    sl_diag d;
    cr_assert_eq(decode_run(buf, len, &b, &d), 0);
    expect_run_equal(&a, &b);
    cr_expect_eq(b.likwid.source, SL_SOURCE_NONE);
    free(buf);
    sl_diag_free(&d);
    sl_run_free(&a);
    sl_run_free(&b);
}

Test(wire, likwid_answer_round_trip)
{
    sl_likwid a, b;
    sl_likwid_init(&a);
    a.source = SL_SOURCE_FULL_API;
    add_region(&a, "solve-step", 10, 0, 2, 6, 3, 1);
    add_region(&a, "io phase", 8, 1, 1, 5, 0, 1);
    add_region(&a, "", 0, 0, 0, 0, 0, 0);
    size_t len;
    int rc;
    char *buf = encode_likwid(&a, &len, &rc);
    cr_assert_eq(rc, 0);
    sl_diag d;
    cr_assert_eq(decode_likwid(buf, len, &b, &d), 0, "%s", d.kept ? d.lines[0] : "");
    expect_likwid_equal(&a, &b);
    sl_diag_free(&d);
    sl_likwid_free(&b);

    /* an answer is not a run, and a run is not an answer */
    sl_run r;
    cr_assert_eq(decode_run(buf, len, &r, &d), -EINVAL);
    expect_one_defect(&d, "in:2: wrong kind: expected 'kind run'");
    sl_diag_free(&d);
    sl_run_free(&r);
    free(buf);

    sl_run full;
    cr_assert(sl_run_init(&full) == 0);
    buf = encode_run(&full, &len, &rc);
    cr_assert_eq(decode_likwid(buf, len, &b, &d), -EINVAL);
    expect_one_defect(&d, "in:2: wrong kind: expected 'kind likwid'");
    sl_diag_free(&d);
    sl_likwid_free(&b);
    sl_run_free(&full);
    free(buf);
    sl_likwid_free(&a);
}

Test(wire, exact_text_of_a_small_answer)
{
    sl_likwid a;
    sl_likwid_init(&a);
    a.source = SL_SOURCE_MARKER_FILE;
    sl_region *r = sl_likwid_add(&a, "io phase%", 9, 2, "", SL_SOURCE_MARKER_FILE, 1, 1, 0, 0);
    cr_assert(r);
    r->cpus[0] = -1;
    r->times[0] = 1.0;
    r->call_counts[0] = 7;
    r->events[0] = -0.0;
    size_t len;
    int rc;
    char *buf = encode_likwid(&a, &len, &rc);
    cr_assert_eq(rc, 0);
    const char *want = "scope-likwid-wire 5\n"
                       "kind likwid\n"
                       "likwid marker_file 1\n"
                       "region =io%20phase%25 2 = marker_file 1 1 0 0\n"
                       "cpus -1\n"
                       "times 3ff0000000000000\n"
                       "counts 7\n"
                       "event = = 8000000000000000\n"
                       "end 8\n";
    cr_expect(len == strlen(want) && memcmp(buf, want, len) == 0, "got:\n%.*s", (int)len, buf);
    free(buf);
    sl_likwid_free(&a);
}

Test(wire, every_truncation_point_fails_cleanly)
{
    sl_run a;
    build_small_run(&a);
    size_t len;
    int rc;
    char *buf = encode_run(&a, &len, &rc);
    cr_assert_eq(rc, 0);
    cr_assert(len > 100 && len < 2000, "small run is %zu bytes", len);
    for (size_t cut = 0; cut <= len; cut++) {
        sl_run b;
        sl_diag d;
        rc = decode_run(buf, cut, &b, &d);
        if (cut == len) {
            cr_expect_eq(rc, 0, "full length must decode");
            expect_run_equal(&a, &b);
        } else {
            cr_expect_eq(rc, -EINVAL, "cut at %zu of %zu decoded", cut, len);
            cr_expect_eq(d.count, 1, "cut at %zu: %zu diagnostics", cut, d.count);
        }
        sl_diag_free(&d);
        sl_run_free(&b);
    }
    free(buf);
    sl_run_free(&a);
}

Test(wire, truncated_at_line_boundary_says_truncated)
{
    sl_run a;
    build_small_run(&a);
    size_t len;
    int rc;
    char *buf = encode_run(&a, &len, &rc);
    /* drop the end line: every line before it is intact */
    size_t cut = len - 1;
    while (cut && buf[cut - 1] != '\n')
        cut--;
    sl_run b;
    sl_diag d;
    cr_assert_eq(decode_run(buf, cut, &b, &d), -EINVAL);
    expect_one_defect(&d, "truncated");
    sl_diag_free(&d);
    sl_run_free(&b);
    free(buf);
    sl_run_free(&a);
}

struct bad {
    const char *text;
    const char *needle;
};

#define H "scope-likwid-wire 1\nkind likwid\n"

static const struct bad bad_inputs[] = {
    {"", "in:1: truncated"},
    {"\n", "in:1: not a scope-likwid wire file: expected 'scope-likwid-wire 5'"},
    {"scope-likwid-wire 6\nkind likwid\nlikwid none 0\nend 3\n", "in:1: not a scope-likwid wire"},
    {"scope-likwid-wire 1\r\nkind likwid\n", "in:1: not a scope-likwid wire"},
    {"2 3 1\n0:init-0\n", "in:1: not a scope-likwid wire"},
    {"scope-likwid-wire 1", "in:1: truncated"},
    {H, "in:3: truncated (input ends): expected likwid"},
    {H "likwid none 0\n", "in:4: truncated"},
    {H "likwid none 0\nend 3", "in:4: truncated (last line has no newline)"},
    {H "likwid none 0\nend 2\n", "in:4: truncated (line count"},
    {H "likwid none 0\nend 4\n", "in:4: truncated (line count"},
    {H "likwid none 0\nend 3\nx\n", "in:4: data after 'end'"},
    {H "likwid none 0\nend 3\n\n", "in:4: data after 'end'"},
    {H "likwid none 0\nend -3\n", "in:4: truncated (line count"},
    {H "likwid none 0\nend 3 \n", "in:4: extra data at end of line"},
    {H "likwid none 0\nfin 3\n", "in:4: unknown keyword 'fin': expected 'end'"},
    {H "likwid  none 0\nend 3\n", "in:3: empty token"},
    {H "likwid none 0\r\nend 3\n", "in:3: byte outside 0x21..0x7E"},
    {H "likwid sometimes 0\nend 3\n", "in:3: unknown source"},
    {H "likwid none\nend 3\n", "in:3: line ends early: expected number of regions"},
    {H "likwid none 0 0\nend 3\n", "in:3: extra data at end of line"},
    {H "likwid none -1\nend 3\n", "in:3: negative count"},
    {H "likwid none 1x\nend 3\n", "in:3: not a decimal integer"},
    {H "likwid none 99999999999999999999\nend 3\n", "in:3: integer out of range"},
    {H "likwid none 9223372036854775807\nend 3\n", "in:3: count larger than the data"},
    {H "likwid none 1\nend 3\n", "in:4: unknown keyword 'end': expected 'region'"},
    {H "\nlikwid none 0\nend 3\n", "in:3: empty line"},
    {H "likwid full_api 1\nregion x 0 = full_api 0 0 0 1\ncpus\ntimes\ncounts\nend 8\n",
     "in:4: string does not start with '='"},
    {H "likwid full_api 1\nregion =x%2 0 = full_api 0 0 0 1\ncpus\ntimes\ncounts\nend 8\n",
     "in:4: bad %XX escape"},
    {H "likwid full_api 1\nregion =x%zz 0 = full_api 0 0 0 1\ncpus\ntimes\ncounts\nend 8\n",
     "in:4: bad %XX escape"},
    {H "likwid full_api 1\nregion =x%00 0 = full_api 0 0 0 1\ncpus\ntimes\ncounts\nend 8\n",
     "in:4: NUL byte in string"},
    {H "likwid full_api 1\nregion =x 0 = full_api 0 0 0 2\ncpus\ntimes\ncounts\nend 8\n",
     "in:4: flag not 0 or 1"},
    {H "likwid full_api 1\nregion =x 0 = full_api 1 0 0 1\ncpus 0\ntimes 3ff\ncounts 1\nend 8\n",
     "in:6: not 16 hex digits"},
    {H "likwid full_api 1\nregion =x 0 = full_api 1 0 0 1\ncpus 0\ntimes 3FF0000000000000\ncounts 1\nend 8\n",
     "in:6: not 16 lower-case hex digits"},
    {H "likwid full_api 1\nregion =x 0 = full_api 1 0 0 1\ncpus 0\ntimes 3ff000000000000g\ncounts 1\nend 8\n",
     "in:6: not 16 lower-case hex digits"},
    {H "likwid full_api 1\nregion =x 0 = full_api 2 0 0 1\ncpus 0\ntimes\ncounts\nend 8\n",
     "in:5: line ends early: expected cpu number"},
    {H "likwid full_api 1\nregion =x 0 = full_api 1 1 0 0\ncpus 0\ntimes 0000000000000000\n"
       "counts 1\nevent =E =PMC0 0000000000000000\nend 8\n",
     "in:8: event name in a region without names"},
    {H "likwid full_api 1\nregion =x 0 = full_api 1 1 0 1\ncpus 0\ntimes 0000000000000000\n"
       "counts 1\nmetric =E 0000000000000000\nend 8\n",
     "in:8: unknown keyword 'metric': expected 'event'"},
};

Test(wire, bad_inputs_give_one_precise_defect)
{
    for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; i++) {
        sl_likwid lw;
        sl_diag d;
        int rc = decode_likwid(bad_inputs[i].text, strlen(bad_inputs[i].text), &lw, &d);
        cr_expect_eq(rc, -EINVAL, "input %zu decoded", i);
        if (rc == -EINVAL) {
            cr_expect_eq(d.count, 1, "input %zu", i);
            cr_expect(strstr(d.lines[0], bad_inputs[i].needle) != NULL,
                      "input %zu: '%s' lacks '%s'", i, d.lines[0], bad_inputs[i].needle);
            cr_expect(strstr(d.lines[0], ": expected ") != NULL, "%s", d.lines[0]);
        }
        sl_diag_free(&d);
        sl_likwid_free(&lw);
    }
}

Test(wire, valid_minimal_answers_decode)
{
    const char *ok[] = {
        H "likwid none 0\nend 3\n",
        H "likwid full_api 1\nregion = 0 = full_api 0 0 0 1\ncpus\ntimes\ncounts\nend 7\n",
        H "likwid full_api 1\nregion =a%2fb 0 =G full_api 1 1 1 1\ncpus 3\n"
          "times 3ff0000000000000\ncounts 1\nevent =E =PMC0 7ff8000000000000\n"
          "metric =%20 fff0000000000000\nend 9\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sl_likwid lw;
        sl_diag d;
        cr_expect_eq(decode_likwid(ok[i], strlen(ok[i]), &lw, &d), 0, "%zu: %s", i,
                     d.kept ? d.lines[0] : "");
        sl_diag_free(&d);
        sl_likwid_free(&lw);
    }
}

/* Deterministic pseudo-random bytes. */
static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

Test(wire, garbage_never_decodes_and_never_crashes)
{
    uint32_t seed = 12345;
    sl_likwid lw0;
    sl_likwid_init(&lw0);
    lw0.source = SL_SOURCE_FULL_API;
    add_region(&lw0, "t", 1, 0, 2, 3, 2, 1);
    size_t vlen;
    int rc;
    char *valid = encode_likwid(&lw0, &vlen, &rc);
    char *buf = malloc(vlen + 4096);
    for (int round = 0; round < 3000; round++) {
        size_t len;
        if (round % 3 == 0) {
            /* pure garbage */
            len = rnd(&seed) % 512;
            for (size_t i = 0; i < len; i++)
                buf[i] = (char)rnd(&seed);
        } else {
            /* a valid answer with a few bytes changed: near misses */
            memcpy(buf, valid, vlen);
            len = vlen;
            int flips = 1 + (int)(rnd(&seed) % 3);
            for (int f = 0; f < flips; f++) {
                size_t at = rnd(&seed) % vlen;
                static const char pick[] = " \n=%0-9afzZ\x01\xff";
                buf[at] = pick[rnd(&seed) % (sizeof pick - 1)];
            }
        }
        sl_likwid lw;
        sl_diag d;
        rc = decode_likwid(buf, len, &lw, &d);
        cr_expect(rc == 0 || rc == -EINVAL, "round %d: rc %d", round, rc);
        if (rc != 0)
            cr_expect_eq(d.count, 1, "round %d", round);
        sl_diag_free(&d);
        sl_likwid_free(&lw);
        sl_run run;
        rc = decode_run(buf, len, &run, &d);
        cr_expect(rc == -EINVAL, "round %d: garbage decoded as a run", round);
        sl_diag_free(&d);
        sl_run_free(&run);
    }
    free(buf);
    free(valid);
    sl_likwid_free(&lw0);
}

/* Caps the address space so a large allocation would fail with ENOMEM
 * instead of succeeding: then "-EINVAL, count larger" proves none was tried. */
static void cap_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return; /* ASan reserves terabytes of shadow memory: no cap possible */
#endif
    struct rlimit rl = {.rlim_cur = 512UL << 20, .rlim_max = 512UL << 20};
    cr_assert(setrlimit(RLIMIT_AS, &rl) == 0);
}

Test(wire, huge_counts_with_little_data_are_refused, .init = cap_memory)
{
    const char *huge[] = {
        H "likwid full_api 100000000000\nend 3\n",
        H "likwid full_api 1\nregion =x 0 = full_api 4000000000 0 0 1\ncpus\n",
        H "likwid full_api 1\nregion =x 0 = full_api 1 4000000000 0 1\ncpus\n",
        H "likwid full_api 1\nregion =x 0 = full_api 1 0 4000000000 0\ncpus\n",
        "scope-likwid-wire 1\nkind run\nrank 0\nmpi_rank -1\npid 1\nhostname =\nexecutable =\n"
        "command_line =\nlikwid_status =\nenv 3000000000\n",
        "scope-likwid-wire 1\nkind run\nrank 0\nmpi_rank -1\npid 1\nhostname =\nexecutable =\n"
        "command_line =\nlikwid_status =\nenv 0\ntiming =C 0 1\ntregion =t 0 0 0 0 1 900000000\n",
    };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        sl_diag d;
        int rc;
        if (strstr(huge[i], "kind run")) {
            sl_run r;
            rc = decode_run(huge[i], strlen(huge[i]), &r, &d);
            sl_run_free(&r);
        } else {
            sl_likwid lw;
            rc = decode_likwid(huge[i], strlen(huge[i]), &lw, &d);
            sl_likwid_free(&lw);
        }
        cr_expect_eq(rc, -EINVAL, "input %zu: rc %d", i, rc);
        cr_expect(d.kept == 1 && strstr(d.lines[0], "larger than the data"), "input %zu: %s", i,
                  d.kept ? d.lines[0] : "");
        sl_diag_free(&d);
    }
}

Test(wire, threads_times_events_is_checked_before_allocating, .init = cap_memory)
{
    /* T and E each fit the bytes left, their product (1.6e11 doubles) does not */
    size_t pad = 1u << 20;
    const char *head = H "likwid full_api 1\nregion =x 0 = full_api 400000 400000 0 0\n";
    size_t hl = strlen(head);
    char *buf = malloc(hl + pad);
    memcpy(buf, head, hl);
    memset(buf + hl, 'x', pad - 1);
    buf[hl + pad - 1] = '\n';
    sl_likwid lw;
    sl_diag d;
    cr_expect_eq(decode_likwid(buf, hl + pad, &lw, &d), -EINVAL);
    expect_one_defect(&d, "in:4: events x threads larger than the data that follows");
    sl_diag_free(&d);
    sl_likwid_free(&lw);
    free(buf);
}

Test(wire, write_errors_are_returned)
{
    sl_run a;
    build_rich_run(&a);
    int fd = open("/dev/full", O_WRONLY);
    cr_assert(fd >= 0);
    cr_expect_eq(sl_wire_write_run(fd, &a), -ENOSPC);
    cr_expect_eq(sl_wire_write_likwid(fd, &a.likwid), -ENOSPC);
    close(fd);
    int p[2];
    cr_assert(pipe(p) == 0);
    close(p[1]);
    cr_expect_eq(sl_wire_write_run(p[1], &a), -EBADF);
    close(p[0]);
    sl_run_free(&a);
}

/* body under the magic line: decoded into r (0 or -EINVAL, d filled). */
static int decode_as(const char *magic, const char *body, sl_run *r, sl_diag *d)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s\n%s", magic, body);
    cr_expect(sl_wire_is_wire(buf, strlen(buf)));
    return decode_run(buf, strlen(buf), r, d);
}

/* body under the magic line is refused with that one defect. */
static void refused_as(const char *magic, const char *body, const char *defect)
{
    sl_run r;
    sl_diag d;
    cr_assert_eq(decode_as(magic, body, &r, &d), -EINVAL);
    expect_one_defect(&d, defect);
    sl_run_free(&r);
    sl_diag_free(&d);
}

/* A version-1 rescue file (no metadata lines) still decodes: its metadata
 * is unknown. The same lines under the version-2 magic lack 'meta', under
 * the version-3 magic 'parent_pid'. */
Test(wire, version_1_is_still_read)
{
    const char *body = "kind run\nrank 2\nmpi_rank 2\npid 9\nhostname =h\nexecutable =/x\n"
                       "command_line =x\nlikwid_status =s\nenv 0\ntiming =CLOCK_MONOTONIC 5 1\n"
                       "tregion =r 0 0 0 0 1 1\nthread 7 1 10 10 10\ncall 7 100 110\n"
                       "likwid none 0\nend 15\n";
    sl_run r;
    sl_diag d;
    cr_assert_eq(decode_as(SL_WIRE_MAGIC_V1, body, &r, &d), 0, "%s", d.kept ? d.lines[0] : "");
    cr_expect_eq(r.rank, 2);
    cr_expect_eq(r.timing.nregions, 1u);
    cr_expect_eq(r.timing.regions[0].end_times[0], 110);
    cr_expect_eq(r.meta.mpi_size, -1);
    cr_expect_eq(r.meta.start_time_ns, -1);
    cr_expect_str_eq(r.meta.user, "");
    sl_run_free(&r);
    sl_diag_free(&d);
    refused_as(SL_WIRE_MAGIC_V2, body, "in:11: unknown keyword 'timing': expected 'meta'");
    refused_as(SL_WIRE_MAGIC_V3, body, "in:6: unknown keyword 'hostname': expected 'parent_pid'");
}

/* A version-3 rescue file (no provenance, no run_id) still decodes, with
 * them unknown; under the version-4 magic the first missing line is named. */
Test(wire, version_3_is_still_read)
{
    const char *body = "kind run\nrank 0\nmpi_rank -1\npid 9\nparent_pid 0\nhostname =h\n"
                       "executable =/x\ncommand_line =x\nlikwid_status =s\nenv 0\n"
                       "meta 1 1 5 9\nworking_directory =/w\nuser =u\nmetavars 0\n"
                       "timing =CLOCK_MONOTONIC 5 0\nlikwid none 0\nend 17\n";
    sl_run r;
    sl_diag d;
    cr_assert_eq(decode_as(SL_WIRE_MAGIC_V3, body, &r, &d), 0, "%s", d.kept ? d.lines[0] : "");
    cr_expect_str_eq(r.meta.user, "u");
    cr_expect_str_eq(r.meta.run_id, "");
    cr_expect_str_eq(r.cpu_model, "");
    cr_expect_eq(r.tsc_hz, 0);
    cr_expect_str_eq(r.likwid_version, "");
    sl_run_free(&r);
    sl_diag_free(&d);
    refused_as(SL_WIRE_MAGIC_V4, body, "in:11: unknown keyword 'env': expected 'likwid_version'");
}

/* A version-4 rescue file (no uid line) still decodes, the uid unknown;
 * under the version-5 magic the missing line is named. */
Test(wire, version_4_is_still_read)
{
    const char *body = "kind run\nrank 0\nmpi_rank -1\npid 9\nparent_pid 0\nhostname =h\n"
                       "executable =/x\ncommand_line =x\nlikwid_status =s\nlikwid_version =\n"
                       "cpu_model =\nkernel_release =\nclock_source =\ntsc_hz 0\nenv 0\n"
                       "meta 1 1 5 9\nworking_directory =/w\nuser =\nrun_id =\nmetavars 0\n"
                       "timing =CLOCK_MONOTONIC 5 0\nlikwid none 0\nend 23\n";
    sl_run r;
    sl_diag d;
    cr_assert_eq(decode_as(SL_WIRE_MAGIC_V4, body, &r, &d), 0, "%s", d.kept ? d.lines[0] : "");
    cr_expect_str_eq(r.meta.user, "");
    cr_expect_eq(r.meta.uid, -1);
    sl_run_free(&r);
    sl_diag_free(&d);
    refused_as(SL_WIRE_MAGIC, body, "in:20: unknown keyword 'run_id': expected 'uid'");
}

Test(wire, is_wire)
{
    cr_expect(sl_wire_is_wire(SL_WIRE_MAGIC_V1 "\n", strlen(SL_WIRE_MAGIC_V1) + 1));
    cr_expect(sl_wire_is_wire(SL_WIRE_MAGIC_V2 "\n", strlen(SL_WIRE_MAGIC_V2) + 1));
    cr_expect(sl_wire_is_wire(SL_WIRE_MAGIC_V3 "\n", strlen(SL_WIRE_MAGIC_V3) + 1));
    cr_expect(sl_wire_is_wire(SL_WIRE_MAGIC_V4 "\n", strlen(SL_WIRE_MAGIC_V4) + 1));
    cr_expect(sl_wire_is_wire(SL_WIRE_MAGIC "\n", strlen(SL_WIRE_MAGIC) + 1));
    cr_expect(!sl_wire_is_wire(SL_WIRE_MAGIC, strlen(SL_WIRE_MAGIC)));
    cr_expect(!sl_wire_is_wire("2 3 1\n", 6));
    cr_expect(!sl_wire_is_wire(NULL, 0));
    cr_expect(!sl_wire_is_wire(SL_WIRE_MAGIC "0\n", strlen(SL_WIRE_MAGIC) + 2));
}
