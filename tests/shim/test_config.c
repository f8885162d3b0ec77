/* SCOPE_LIKWID_* parsing: good values, garbage, defaults. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ground.h"

/* Criterion moves fd 2: the shim writes only to the stderr it took. */
static void redirect_stderr(void)
{
    cr_redirect_stderr();
    sl_log_take_stderr();
}

Test(config, timeout_values)
{
    double t = -1;
    cr_assert_eq(sl_parse_timeout("10", &t), 0);
    cr_assert_float_eq(t, 10.0, 1e-12);
    cr_assert_eq(sl_parse_timeout("2.5", &t), 0);
    cr_assert_float_eq(t, 2.5, 1e-12);
    cr_assert_eq(sl_parse_timeout(" .25 ", &t), 0);
    cr_assert_float_eq(t, 0.25, 1e-12);
    t = 42;
    const char *bad[] = {"", "0", "0.0", "-1", "abc", "1e3", "inf", "nan", "1.2.3", "5s",
                         ".", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sl_parse_timeout(bad[i], &t), -EINVAL, "'%s' accepted", bad[i]);
    cr_assert_float_eq(t, 42.0, 1e-12);
}

Test(config, max_calls_values)
{
    int64_t v = -1;
    cr_assert_eq(sl_parse_max_calls("0", &v), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(sl_parse_max_calls(" 1000 ", &v), 0);
    cr_assert_eq(v, 1000);
    v = 5;
    const char *bad[] = {"", "-1", "1.5", "ten", "10x", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sl_parse_max_calls(bad[i], &v), -EINVAL, "'%s' accepted", bad[i]);
    cr_assert_eq(v, 5);
}

Test(config, sources_list)
{
    unsigned s = 0;
    cr_assert_eq(sl_parse_sources("full_api,marker_file,marker_api", &s), 0);
    cr_assert_eq(s, SL_SRC_ALL);
    cr_assert_eq(sl_parse_sources(" marker_api ", &s), 0);
    cr_assert_eq(s, SL_SRC_MARKER_API);
    cr_assert_eq(sl_parse_sources("bogus,marker_file,,", &s), 0, "unknown names are skipped");
    cr_assert_eq(s, SL_SRC_MARKER_FILE);
    s = 99;
    cr_assert_eq(sl_parse_sources("", &s), -EINVAL);
    cr_assert_eq(sl_parse_sources("full-api", &s), -EINVAL);
    cr_assert_eq(sl_parse_sources(",,,", &s), -EINVAL);
    cr_assert_eq(s, 99);
}

Test(config, defaults_without_variables)
{
    sl_config c;
    sl_config_load(&c);
    cr_assert_eq(c.disabled, 0);
    cr_assert_eq(c.quiet, 0);
    cr_assert_eq(c.verbose, 0);
    cr_assert_float_eq(c.timeout_s, SL_DEFAULT_TIMEOUT_S, 1e-12);
    cr_assert_eq(c.sources, SL_SRC_ALL);
    cr_assert_eq(c.max_calls, SL_DEFAULT_MAX_CALLS);
    cr_assert_null(c.output);
    cr_assert_null(c.collector);
    cr_assert_null(c.writer);
    sl_config_free(&c);
}

Test(config, garbage_gives_defaults, .init = redirect_stderr)
{
    setenv("SCOPE_LIKWID_DISABLE", "maybe", 1);
    setenv("SCOPE_LIKWID_TIMEOUT", "-3", 1);
    setenv("SCOPE_LIKWID_SOURCES", "nothing", 1);
    setenv("SCOPE_LIKWID_MAX_CALLS", "%n%n%n", 1);
    setenv("SCOPE_LIKWID_VERBOSE", "very", 1);
    setenv("SCOPE_LIKWID_OUTPUT", "", 1);
    setenv("SCOPE_LIKWID_WRITER", "", 1);
    sl_config c;
    sl_config_load(&c);
    cr_assert_eq(c.disabled, 0);
    cr_assert_eq(c.verbose, 0);
    cr_assert_float_eq(c.timeout_s, SL_DEFAULT_TIMEOUT_S, 1e-12);
    cr_assert_eq(c.sources, SL_SRC_ALL);
    cr_assert_eq(c.max_calls, SL_DEFAULT_MAX_CALLS);
    cr_assert_null(c.output);
    cr_assert_null(c.writer);
    sl_config_free(&c);
    fflush(stderr);
    /* One warning line per bad variable, the value quoted, never used as a format. */
    cr_assert_stderr_eq_str(
        "scope-likwid: SCOPE_LIKWID_VERBOSE='very' not understood: expected 1/0, yes/no, true/false or on/off; using 0\n"
        "scope-likwid: SCOPE_LIKWID_DISABLE='maybe' not understood: expected 1/0, yes/no, true/false or on/off; using 0\n"
        "scope-likwid: SCOPE_LIKWID_TIMEOUT='-3' not understood: expected seconds > 0 (e.g. 10 or 2.5); using 10\n"
        "scope-likwid: SCOPE_LIKWID_SOURCES: unknown source 'nothing' ignored: expected full_api, marker_file or marker_api\n"
        "scope-likwid: SCOPE_LIKWID_SOURCES='nothing' names no known source: expected a comma list of full_api, marker_file, marker_api; using all three\n"
        "scope-likwid: SCOPE_LIKWID_MAX_CALLS='%n%n%n' not understood: expected an integer >= 0; using 1000\n"
        "scope-likwid: SCOPE_LIKWID_OUTPUT is empty: expected a path; using the default\n"
        "scope-likwid: SCOPE_LIKWID_WRITER is empty: expected a path; using the default\n");
}

Test(config, good_values)
{
    setenv("SCOPE_LIKWID_TIMEOUT", "0.5", 1);
    setenv("SCOPE_LIKWID_SOURCES", "marker_file,marker_api", 1);
    setenv("SCOPE_LIKWID_MAX_CALLS", "0", 1);
    setenv("SCOPE_LIKWID_QUIET", "1", 1);
    setenv("SCOPE_LIKWID_OUTPUT", "out-%r.h5", 1);
    setenv("SCOPE_LIKWID_COLLECTOR", "/x/collect", 1);
    sl_config c;
    sl_config_load(&c);
    cr_assert_float_eq(c.timeout_s, 0.5, 1e-12);
    cr_assert_eq(c.sources, SL_SRC_MARKER_FILE | SL_SRC_MARKER_API);
    cr_assert_eq(c.max_calls, 0);
    cr_assert_eq(c.quiet, 1);
    cr_assert_str_eq(c.output, "out-%r.h5");
    cr_assert_str_eq(c.collector, "/x/collect");
    sl_config_free(&c);
}

Test(config, quiet_silences_warnings, .init = redirect_stderr)
{
    setenv("SCOPE_LIKWID_QUIET", "1", 1);
    setenv("SCOPE_LIKWID_TIMEOUT", "soon", 1);
    sl_config c;
    sl_config_load(&c);
    cr_assert_float_eq(c.timeout_s, SL_DEFAULT_TIMEOUT_S, 1e-12);
    sl_config_free(&c);
    fflush(stderr);
    cr_assert_stderr_eq_str("");
}

Test(config, disable)
{
    setenv("SCOPE_LIKWID_DISABLE", "1", 1);
    cr_assert_eq(sl_config_disabled(), 1);
    setenv("SCOPE_LIKWID_DISABLE", "0", 1);
    cr_assert_eq(sl_config_disabled(), 0);
}

/* A boolean variable read again and again (rebind reads SCOPE_LIKWID_REBIND
 * at every dlopen, SCOPE_LIKWID_DISABLE at load, Init and exit): one
 * warning per variable in the process, the default every time. */
Test(config, bool_warned_once, .init = redirect_stderr)
{
    setenv("SCOPE_LIKWID_REBIND", "sometimes", 1);
    setenv("SCOPE_LIKWID_DISABLE", "maybe", 1);
    setenv("SCOPE_LIKWID_JOURNAL", "off", 1);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(sl_env_bool("SCOPE_LIKWID_REBIND", 1), 1);
        cr_assert_eq(sl_config_disabled(), 0);
        cr_assert_eq(sl_env_bool("SCOPE_LIKWID_JOURNAL", 1), 0);
    }
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "scope-likwid: SCOPE_LIKWID_REBIND='sometimes' not understood: expected 1/0, yes/no, true/false or on/off; using 1\n"
        "scope-likwid: SCOPE_LIKWID_DISABLE='maybe' not understood: expected 1/0, yes/no, true/false or on/off; using 0\n");
}
