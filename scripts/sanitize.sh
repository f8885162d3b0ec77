#!/bin/sh
# Sanitizer builds and their test runs (called by .ci/run; see docs/RELIABILITY.md).
#   sh scripts/sanitize.sh asan [BUILD_DIR]   gcc, ASan+UBSan+LSan, -Werror, every meson test
#   sh scripts/sanitize.sh tsan [BUILD_DIR]   gcc, TSan, the threaded tests that can run under it
# BUILD_DIR defaults to build-asan / build-tsan (configured on first use).
# Prints meson test's output and ends with "sanitize KIND: ok N, fail N, skip N".
# Exit status: meson test's (non-zero when a test failed).
set -eu
kind=${1:?usage: sanitize.sh asan|tsan [BUILD_DIR]}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-build-$kind}
jobs=${SL_JOBS:-2}

case $kind in
asan)
    # halt_on_error: a UBSan finding fails the test instead of scrolling by.
    # verify_asan_link_order=0: the e2e and cli tests LD_PRELOAD the shim in
    # front of an ASan-linked program (the examples are built with ASan too),
    # so libasan is not the first library. That is safe here: of the symbols
    # ASan intercepts the shim defines only dlopen (tests/shim/check_exports.sh),
    # which jumps on to the next one, libasan's; malloc & co. still resolve
    # to libasan.
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:abort_on_error=0
    # tests/damage: 60 mutants per input instead of 170 (the ASan build runs
    # each tool about 3 times slower; 1080 runs keep it near 2 minutes)
    SL_DAMAGE_MUTANTS=60
    export UBSAN_OPTIONS ASAN_OPTIONS SL_DAMAGE_MUTANTS
    [ -f "$build/build.ninja" ] ||
        meson setup "$build" "$src" -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true
    select= ;;
tsan)
    # TSan runs the threaded parts that TSan can run:
    # - not the Criterion suites (core, wire, h5, shim): Criterion aborts at
    #   start under TSan ("Could not initialize inheritable arena",
    #   Snaipe/Criterion#274), so no Criterion test can run in a TSan build;
    # - core/markerfile_locale (threads parsing under uselocale);
    # - cli (scope-likwid, and `run`, which preloads the shim);
    # - e2e with the simulated LIKWID: the OpenMP solver, 2 threads, under the
    #   preloaded TSan-built shim, every counter source and collector fault;
    # - not the e2e real-* and mpi tests: with the real (no-count) LIKWID
    #   TSan reports a race in examples/solver.c between the OpenMP loop and
    #   the code after it: libgomp's barrier is not TSan-instrumented, a false
    #   positive in the example, not in the shim. (With the simulated LIKWID
    #   its marker calls synchronise, so no false report there.)
    # - tests/faults cases that run the pthreads fault_app under the shim,
    #   except close-threads-inside (TSan reports a race inside the simulated
    #   LIKWID, tests/simlikwid/sim_marker.c, with and without the shim, and
    #   the report's frames differ, so stderr differs) and many-tags (over its
    #   120 s limit under TSan);
    # - rtldlocal-plugin-*: a pthreads plugin dlopen()ed RTLD_LOCAL, real and
    #   simulated LIKWID, 1 and 4 threads (the Python cases SKIP in sanitizer
    #   builds: python3 is not instrumented).
    # - the exit-order, cycle, fd-2 and signal/recover cases (not segv: TSan
    #   reports the crash itself).
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    export TSAN_OPTIONS
    [ -f "$build/build.ninja" ] ||
        meson setup "$build" "$src" -Db_sanitize=thread -Db_lundef=false
    select='^(markerfile_locale|cli_.*|checker-selftest|sim-.*|collector-.*|real-node-check-sim-.*'
    select="$select|fault-app-(no-close|close-twice|fork-markers|sigchld-ignore|sigchld-reap|block-signals)"
    select="$select|fault-app-(fd-limit|unknown-tags|long-tags|many-threads)"
    select="$select|fault-app-(close-atexit|close-static-dtor|two-cycles-sim|two-cycles-real|fd2-data)"
    select="$select|fault-signal-(term|kill|abort|run|alive|handler-before|handler-after)"
    select="$select|fault-collector-.*|fault-helpers-hygiene|fault-env-.*|rtldlocal-plugin-.*|writer-early-.*)\$" ;;
*) echo "sanitize.sh: KIND '$kind': expected asan or tsan" >&2; exit 2 ;;
esac

ninja -C "$build"
set --
if [ -n "$select" ]; then
    # meson test --list prints "project:suite / name"
    for t in $(meson test -C "$build" --list 2>/dev/null | sed -n 's|^[^ ]* / ||p' | grep -E "$select"); do
        set -- "$@" "$t"
    done
    [ $# -gt 0 ] || { echo "sanitize.sh: no test matches $select" >&2; exit 1; }
fi
set +e
meson test -C "$build" --print-errorlogs --num-processes "$jobs" "$@" >"$build/sanitize-test.log" 2>&1
rc=$?
set -e
cat "$build/sanitize-test.log"
count() {
    n=$(sed -n "s/^$1: *\([0-9]*\).*/\1/p" "$build/sanitize-test.log" | tail -n1)
    echo "${n:-0}"
}
fail=$(( $(count Fail) + $(count Timeout) + $(count 'Unexpected Pass') ))
echo "sanitize $kind: ok $(count Ok), fail $fail, skip $(count Skipped)"
exit $rc
