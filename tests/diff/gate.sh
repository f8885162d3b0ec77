#!/bin/sh
# scope-likwid diff as a CI gate (issue 29): exit codes 0/1/2 and the last
# stderr line; what base has and new lacks (regions, ranks, LIKWID groups,
# counters, metric values) fails unless --allow-missing; metric directions;
# means, not medians, of capped samples; JUnit XML (checked with Python's
# xml.etree against the schema's required elements) and GitHub's workflow
# commands and step summary; provenance warnings.
# usage: gate.sh SCOPE_LIKWID SAMPLES_DIR MK_RESULT SHIM SOLVER
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
SHIM=$4 SOLVER=$5
case $SHIM in /*) ;; *) SHIM=$START/$SHIM ;; esac
case $SOLVER in /*) ;; *) SOLVER=$START/$SOLVER ;; esac

# with VAR VALUE NAME ARGS...: sl NAME ARGS with VAR=VALUE in the environment
with() {
    _var=$1 _val=$2
    shift 2
    export "$_var=$_val"
    sl "$@"
    unset "$_var"
}

# check_no FILE PATTERN WHAT (fixed string not in FILE)
check_no() {
    CHECKS=$((CHECKS + 1))
    if grep -qF -- "$2" "$1"; then fail "$3: '$2' in $(basename "$1")"; fi
}

mk base.h5 <<'EOF'
rank 0
t solve 1000000 1000000 1000000
t io 2000000 2000000
EOF
mk slow.h5 <<'EOF'
rank 0
t solve 1500000 1500000 1500000
t io 2000000 2000000
EOF

# ---- 1. exit codes: 0 pass, 1 regression, 2 no comparison; the last line
sl e_pass diff base.h5 base.h5
check_rc 0 "1: pass"
check_last_err "scope-likwid: diff: pass: 2 comparisons, none slower or worse by more than 10%, none missing in new" "1: pass: last line"
sl e_slow diff base.h5 slow.h5
check_rc 1 "1: regression"
check_last_err "scope-likwid: diff: regression: 1 of 2 comparisons failed (threshold 10%): slower 1, metric worse 0, missing in new 0" "1: regression: last line"
sl e_missing diff base.h5 missing.h5
check_rc 2 "1: missing input"
check_grep e_missing.err "scope-likwid: diff: missing.h5: cannot open: No such file or directory" "1: missing input named"
check_last_err "scope-likwid: diff: error: bad input, nothing compared" "1: missing input: last line"
mkdir adir
sl e_dir diff adir base.h5
check_rc 2 "1: a directory"
check_last_err "scope-likwid: diff: error: bad input, nothing compared" "1: a directory: last line"
sl e_usage diff base.h5 --threshold
check_rc 2 "1: usage error"
check_last_err "scope-likwid: diff: option '--threshold' needs a value; try 'scope-likwid diff --help'" "1: usage: last line"
# a --metric in neither file (a typo): nothing compared, nothing printed
sl e_metric diff base.h5 slow.h5 --metric NOPE
check_rc 2 "1: --metric in neither file"
check_last_err "scope-likwid: diff: error: metric 'NOPE' is in neither file, nothing compared" "1: --metric NOPE: last line"
CHECKS=$((CHECKS + 1))
[ -s "$TMP/e_metric.out" ] && fail "1: --metric NOPE: output printed: $(cat "$TMP/e_metric.out")"
# an input that hangs the reading process (the sandbox's deadline): 2
mkfifo fifo.h5
with SCOPE_LIKWID_READ_TIMEOUT 1 e_hang diff base.h5 fifo.h5
check_rc 2 "1: a hanging input"
check_last_err "scope-likwid: diff: fifo.h5: damaged (no answer in 1 s)" "1: a hanging input: last line"

# ---- 2. what base has and new lacks fails, unless --allow-missing
mk lost_region.h5 <<'EOF'
rank 0
t solve 1000000 1000000 1000000
t fresh 5000
EOF
sl m_region diff base.h5 lost_region.h5 --csv
check_rc 1 "2: region lost"
check_line m_region.out "rank0,io,timing,,,time/call,ms,median,2,,,2,,only in base,fail" "2: region lost: row"
check_line m_region.out "rank0,fresh,timing,,,time/call,ms,median,,0.005,,,0.005,only in new," "2: region only in new: reported"
check_last_err "scope-likwid: diff: regression: 1 of 3 comparisons failed (threshold 10%): slower 0, metric worse 0, missing in new 1" "2: region lost: last line"
sl m_region_ok diff base.h5 lost_region.h5 --csv --allow-missing
check_rc 0 "2: region lost, --allow-missing"
check_line m_region_ok.out "rank0,io,timing,,,time/call,ms,median,2,,,2,,only in base," "2: --allow-missing: row reported, not failing"
check_last_err "scope-likwid: diff: pass: 3 comparisons, none slower or worse by more than 10%, 1 missing in new (allowed)" "2: --allow-missing: last line"
# a rank lost, a rank only in new: diff.sh, section 5
# mk_lw OUT.h5 METRICS [no]: solve timed, LIKWID group 0 FLOPS_DP with these
# metrics (two threads), group 1 MEM unless "no"
mk_lw() {
    { echo "rank 0"; echo "t solve 1000000"; echo "l solve 0 FLOPS_DP 1.0,1.0 $2"
      [ "${3:-}" = no ] || echo "l solve 1 MEM 2.0,2.0 BW=5,5"; } | "$MK" "$1" >/dev/null ||
        fail "mk_result $1"
}
mk_lw lw_b.h5 "MFLOP/s=100,100 CPI=1,1"
mk_lw lw_group.h5 "MFLOP/s=100,100 CPI=1,1" no
sl m_group diff lw_b.h5 lw_group.h5 --csv
check_rc 1 "2: LIKWID group lost"
check_line m_group.out "rank0,solve,likwid,1,MEM,runtime/call,s,max thread,2,,,,,only in base,fail" "2: LIKWID group lost: row"
# LIKWID stopped counting: new has the timing, no counters
mk lw_none.h5 <<'EOF'
rank 0
t solve 1000000
EOF
sl m_counters diff lw_b.h5 lw_none.h5 --csv
check_rc 1 "2: counters lost"
check_line m_counters.out "rank0,solve,likwid,0,FLOPS_DP,runtime/call,s,max thread,1,,,,,only in base,fail" "2: counters lost: g0"
check_line m_counters.out "rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "2: counters lost: timing still compared"
sl m_counters_ok diff lw_b.h5 lw_none.h5 --allow-missing
check_rc 0 "2: counters lost, --allow-missing"
# the region still there, its events gone
mk_lw lw_ev.h5 "ev:FP_ARITH@PMC0=10,20 ev:CYCLES@FIXC1=5,5 MFLOP/s=100,100"
mk_lw lw_noev.h5 "MFLOP/s=100,100"
sl m_events diff lw_ev.h5 lw_noev.h5 --csv
check_rc 1 "2: events lost"
check_line m_events.out "rank0,solve,likwid,0,FLOPS_DP,counters,,events,2,0,,,,no data,fail" "2: events lost: row"
sl m_events_label diff lw_ev.h5 lw_ev.h5 --csv --metric 'FP_ARITH:higher'
check_rc 0 "2: an event label as a metric"
check_line m_events_label.out "rank0,solve,likwid,0,FLOPS_DP,FP_ARITH,,thread mean,15,15,0,,,same,pass" "2: an event label's row"
# a metric base has that new's region lacks
mk_lw lw_nometric.h5 "CPI=1,1"
sl m_metric diff lw_b.h5 lw_nometric.h5 --csv --metric MFLOP/s
check_rc 1 "2: metric values lost"
check_line m_metric.out "rank0,solve,likwid,0,FLOPS_DP,MFLOP/s,,thread mean,100,,,,,no data,fail" "2: metric values lost: row"

# ---- 3. metric directions: a change beyond the threshold the worse way fails
mk_lw lw_low.h5 "MFLOP/s=70,70 CPI=1.5,1.5"
sl d_higher diff lw_b.h5 lw_low.h5 --csv --metric 'MFLOP/s:higher'
check_rc 1 "3: 30% drop, higher is better"
check_line d_higher.out "rank0,solve,likwid,0,FLOPS_DP,MFLOP/s,,thread mean,100,70,-30,,,lower,fail" "3: higher is better: row"
check_last_err "scope-likwid: diff: regression: 1 of 4 comparisons failed (threshold 10%): slower 0, metric worse 1, missing in new 0" "3: higher is better: last line"
sl d_lower diff lw_b.h5 lw_low.h5 --csv --metric 'MFLOP/s:lower'
check_rc 0 "3: 30% drop, lower is better"
check_line d_lower.out "rank0,solve,likwid,0,FLOPS_DP,MFLOP/s,,thread mean,100,70,-30,,,lower,pass" "3: lower is better: row"
sl d_none diff lw_b.h5 lw_low.h5 --csv --metric MFLOP/s
check_rc 0 "3: no direction: reported only"
check_line d_none.out "rank0,solve,likwid,0,FLOPS_DP,MFLOP/s,,thread mean,100,70,-30,,,lower," "3: no direction: row"
sl d_cpi diff lw_b.h5 lw_low.h5 --csv --metric CPI:lower --metric MFLOP/s
check_rc 1 "3: CPI up 50%, lower is better"
check_line d_cpi.out "rank0,solve,likwid,0,FLOPS_DP,CPI,,thread mean,1,1.5,50,,,higher,fail" "3: CPI: row"
sl d_thr diff lw_b.h5 lw_low.h5 --metric 'MFLOP/s:higher' --threshold 35
check_rc 0 "3: 30% drop within a 35% threshold"
sl d_bad diff lw_b.h5 lw_low.h5 --metric 'MFLOP/s:sideways'
check_rc 2 "3: an unknown direction is part of the name: in neither file"
check_last_err "scope-likwid: diff: error: metric 'MFLOP/s:sideways' is in neither file, nothing compared" "3: unknown direction: last line"

# ---- 4. capped per-call samples: means of all calls, and said so
samples() { # samples N NS: N times NS
    i=0
    while [ "$i" -lt "$1" ]; do printf ' %s' "$2"; i=$((i + 1)); done
}
{ echo "rank 0"; echo "t solve$(samples 200 1000000)"; } | "$MK" full.h5 >/dev/null || fail "mk full.h5"
# 10 of 200 calls kept (SCOPE_LIKWID_MAX_CALLS=10), the first ones fast
{ echo "rank 0"; echo "c solve 200 200000000$(samples 10 500000)"; } | "$MK" cap_same.h5 >/dev/null ||
    fail "mk cap_same.h5"
sl c_same diff full.h5 cap_same.h5 --csv
check_rc 0 "4: capped, same total"
check_line c_same.out "rank0,solve,timing,,,time/call,ms,mean (samples capped),1,1,0,,,same,pass" "4: capped: means compared"
check_grep c_same.err "scope-likwid: diff: warning: 1 timing row compared by mean, not median: per-call samples were capped (SCOPE_LIKWID_MAX_CALLS) in base or new (rank0 solve: new kept 10 of 200 calls)" "4: capped: said"
# the kept samples look the same, the calls dropped were slow: a regression
{ echo "rank 0"; echo "c solve 200 300000000$(samples 10 1000000)"; } | "$MK" cap_slow.h5 >/dev/null ||
    fail "mk cap_slow.h5"
sl c_slow diff full.h5 cap_slow.h5 --csv
check_rc 1 "4: capped, 50% slower in total"
check_line c_slow.out "rank0,solve,timing,,,time/call,ms,mean (samples capped),1,1.5,50,,,slower,fail" "4: capped slower: row"
sl c_none diff full.h5 full.h5
check_no c_none.err "capped" "4: nothing capped: nothing said"
# the shim's own files: the solver (2 threads x 20 calls of solve-step)
# without and with SCOPE_LIKWID_MAX_CALLS=5 (LIKWID not counting)
for f in run_full:1000 run_cap:5; do
    SCOPE_LIKWID_MAX_CALLS=${f#*:} SCOPE_LIKWID_OUTPUT=$TMP/${f%%:*}.h5 OMP_NUM_THREADS=2 \
        LD_PRELOAD=$SHIM "$SOLVER" >/dev/null 2>&1 || fail "4: the solver under the shim (${f%%:*})"
done
sl c_shim diff run_full.h5 run_cap.h5 --threshold 100000 --csv
check_rc 0 "4: the shim's capped file"
check_grep c_shim.out "rank0,solve-step,timing,,,time/call,ms,mean (samples capped)," "4: the shim's capped file: means compared"
check_grep c_shim.err "(rank0 solve-step: new kept 10 of 40 calls)" "4: the shim's capped file: said"

# ---- 5. JUnit XML and GitHub's workflow commands, beside the table
# junit_check FILE TESTS FAILURES ERRORS: the JUnit schema's required
# elements and attributes, and the counts (junit_check.py)
junit_check() {
    CHECKS=$((CHECKS + 1))
    "$PY" "$HERE/junit_check.py" "$@" || fail "5: $1: not the JUnit expected"
}
sl j_slow diff base.h5 slow.h5 --junit j_slow.xml
check_rc 1 "5: junit, regression"
check_grep j_slow.out "| +50.0% |  slower | fail |" "5: junit: the table still printed"
junit_check j_slow.xml 2 1 0
check_grep j_slow.xml '<failure message="rank0 solve (timing time/call [ms], median): slower +50.0% (base 1, new 1.5)" type="regression">' "5: junit: the failure's message"
check_grep j_slow.xml '<testcase name="io time/call [ms]" classname="rank0.timing"/>' "5: junit: a passing testcase"
sl j_pass diff base.h5 base.h5 --junit j_pass.xml
check_rc 0 "5: junit, pass"
junit_check j_pass.xml 2 0 0
sl j_miss diff base.h5 lost_region.h5 --junit j_miss.xml --allow-missing
junit_check j_miss.xml 3 0 0
check_grep j_miss.xml '<skipped message="rank0 fresh (timing time/call [ms], median): only in new (base -, new 0.005)"/>' "5: junit: only in new skipped"
sl j_err diff base.h5 missing.h5 --junit j_err.xml
check_rc 2 "5: junit, bad input"
junit_check j_err.xml 1 0 1
check_grep j_err.xml '<error message="bad input, nothing compared">' "5: junit: the error"
sl j_nodir diff base.h5 slow.h5 --junit nodir/j.xml
check_rc 2 "5: junit file not written"
check_grep j_nodir.err "scope-likwid: diff: nodir/j.xml: cannot write: No such file or directory" "5: junit not written: said"
check_last_err "scope-likwid: diff: error: an output was not written (regression: 1 of 2 comparisons failed (threshold 10%): slower 1, metric worse 0, missing in new 0)" "5: junit not written: last line"
# control bytes and markup in tags stay well-formed XML
mk odd.h5 <<'EOF'
rank 0
t a<b>&"c%01 1000
EOF
sl j_odd diff odd.h5 odd.h5 --junit j_odd.xml
junit_check j_odd.xml 1 0 0
# --github: ::error per failing row after the table; a Markdown table
# appended to $GITHUB_STEP_SUMMARY
echo "earlier step" >summary.md
with GITHUB_STEP_SUMMARY $TMP/summary.md g_slow diff base.h5 slow.h5 --github
check_rc 1 "5: github, regression"
check_grep g_slow.out "| +50.0% |  slower | fail |" "5: github: the table still printed"
check_line g_slow.out "::error title=scope-likwid diff::rank0 solve (timing time/call [ms], median): slower +50.0%25 (base 1, new 1.5)" "5: github: ::error"
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^::' "$TMP/g_slow.out")" = 1 ] || fail "5: github: one workflow command expected: $(cat "$TMP/g_slow.out")"
check_line summary.md "earlier step" "5: summary appended to"
check_line summary.md "### scope-likwid diff: base.h5 vs slow.h5" "5: summary heading"
check_line summary.md "| Rank | Region | Source | Quantity | Statistic | Base | New | Change | Verdict | Gate | Base min | New min |" "5: summary table head"
check_line summary.md "| rank0 | solve | timing | time/call \\[ms\\] | median | 1 | 1.5 | +50.0% | slower | fail | 1 | 1.5 |" "5: summary row"
check_line summary.md "**regression: 1 of 2 comparisons failed (threshold 10%): slower 1, metric worse 0, missing in new 0**" "5: summary verdict"
unset GITHUB_STEP_SUMMARY
sl g_nosum diff base.h5 slow.h5 --github
check_rc 1 "5: github without a step summary"
mk pct.h5 <<'EOF'
rank 0
t a%25b%0Ac 1000
EOF
mk pct2.h5 <<'EOF'
rank 0
t other 1000
EOF
with GITHUB_STEP_SUMMARY $TMP/sum2.md g_pct diff pct.h5 pct2.h5 --github
check_rc 1 "5: github: a tag with % and a newline missing"
check_line g_pct.out '::error title=scope-likwid diff::rank0 a%25b?c (timing time/call [ms], median): only in base (base 0.001, new -): missing in new' "5: github: % encoded, the newline as in the table"
check_grep sum2.md '| rank0 | a%b?c |' "5: summary: control byte as ?"
with GITHUB_STEP_SUMMARY $TMP/sum3.md g_err diff base.h5 missing.h5 --github
check_rc 2 "5: github, bad input"
check_line g_err.out "::error title=scope-likwid diff::bad input, nothing compared" "5: github: the error"
check_line sum3.md "**bad input, nothing compared**" "5: summary: the error"
with GITHUB_STEP_SUMMARY $TMP/nodir/s.md g_nosumdir diff base.h5 base.h5 --github
check_rc 2 "5: step summary not written"
check_grep g_nosumdir.err "nodir/s.md (GITHUB_STEP_SUMMARY): cannot write: No such file or directory" "5: step summary not written: said"
sl g_csv diff base.h5 slow.h5 --github --csv
check_rc 2 "5: --github with --csv"

# ---- 6. provenance: other hosts or executables, one line each
mk h_a.h5 <<'EOF'
rank 0
a hostname nodeA
a executable /opt/app/bin/app
t solve 1000000
EOF
mk h_b.h5 <<'EOF'
rank 0
a hostname nodeB
a executable /opt/app2/bin/app
t solve 1000000
EOF
sl p_diff diff h_a.h5 h_b.h5
check_rc 0 "6: provenance differs: still a pass"
check_line p_diff.err "scope-likwid: diff: warning: base and new differ in hostname: 'nodeA' (base) vs 'nodeB' (new), 1 of 1 rank pairs" "6: other host"
check_line p_diff.err "scope-likwid: diff: warning: base and new differ in executable: '/opt/app/bin/app' (base) vs '/opt/app2/bin/app' (new), 1 of 1 rank pairs" "6: other executable"
check_last_err "scope-likwid: diff: pass: 1 comparison, none slower or worse by more than 10%, none missing in new" "6: the verdict stays last"
CHECKS=$((CHECKS + 1))
[ "$(grep -c warning "$TMP/p_diff.err")" = 2 ] || fail "6: two warnings expected: $(cat "$TMP/p_diff.err")"
sl p_same diff h_a.h5 h_a.h5
check_no p_same.err "warning" "6: same provenance: no warning"
with GITHUB_STEP_SUMMARY $TMP/sum4.md p_gh diff h_a.h5 h_b.h5 --github
check_line p_gh.out "::warning title=scope-likwid diff::base and new differ in hostname: 'nodeA' (base) vs 'nodeB' (new), 1 of 1 rank pairs" "6: github ::warning"
sl p_junit diff h_a.h5 h_b.h5 --junit p.xml
check_grep p.xml "base and new differ in hostname" "6: junit system-err"
# the same host name, another CPU, kernel and clock source (provenance
# recorded at Init): one line each
mk c_a.h5 <<'EOF'
rank 0
a hostname nodeA
a cpu_model Xeon-6430
a kernel_release 6.1.0-18
a clock_source tsc
t solve 1000000
EOF
mk c_b.h5 <<'EOF'
rank 0
a hostname nodeA
a cpu_model EPYC-9654
a kernel_release 6.1.0-25
a clock_source kvm-clock
t solve 1000000
EOF
sl c_diff diff c_a.h5 c_b.h5
check_rc 0 "6: other CPU: still a pass"
check_line c_diff.err "scope-likwid: diff: warning: base and new differ in cpu_model: 'Xeon-6430' (base) vs 'EPYC-9654' (new), 1 of 1 rank pairs" "6: other CPU"
check_line c_diff.err "scope-likwid: diff: warning: base and new differ in kernel_release: '6.1.0-18' (base) vs '6.1.0-25' (new), 1 of 1 rank pairs" "6: other kernel"
check_line c_diff.err "scope-likwid: diff: warning: base and new differ in clock_source: 'tsc' (base) vs 'kvm-clock' (new), 1 of 1 rank pairs" "6: other clock source"
CHECKS=$((CHECKS + 1))
[ "$(grep -c warning "$TMP/c_diff.err")" = 3 ] || fail "6: three warnings expected: $(cat "$TMP/c_diff.err")"

finish
