#!/usr/bin/python3
"""convert --group --arch against an independent evaluation of LIKWID's
group files: a marker file of random counter values per (architecture,
group), converted with the group file, read back with h5py; the event and
counter names must be the EVENTSET's, the metric names the METRICS', and
every metric per thread what this script computes from the formula text
(Python's own arithmetic, LIKWID's variables: the counters, time = the
region's time of the thread, inverseClock = 1/--clock, num_sockets and
num_numadomains from --sockets, --numa-domains). Without them,
the metrics with inverseClock must be left out and named on stderr. Then
every group file of every architecture in the folder must convert.

usage: group_metrics.py SCOPE_LIKWID PERFGROUPS_DIR
Exit 77 (skip) when PERFGROUPS_DIR or h5py is missing."""
import math, os, random, re, subprocess, sys, tempfile

cli, pgdir = sys.argv[1:3]
work = tempfile.mkdtemp(prefix="sl-group-metrics.")
try:
    import h5py
except ImportError:
    print("SKIP: no h5py (Debian package python3-h5py)")
    sys.exit(77)
if not os.path.isdir(pgdir):
    print("SKIP: no LIKWID group files in %s (Debian package likwid)" % pgdir)
    sys.exit(77)

CASES = [(a, g) for a in ("skylakeX", "broadwellEP", "zen2")
         for g in ("FLOPS_DP", "MEM_DP", "MEM", "CLOCK")
         if os.path.exists(os.path.join(pgdir, a, g + ".txt"))]
CLOCK = 2.1e9
bad = []
rng = random.Random(30)

def group_file(path):
    """EVENTSET (counter, event) and METRICS (name, formula) as LIKWID reads them:
    a section starts at its word, ends at a blank line; a metric's formula is
    its last word."""
    ev, me, sec = [], [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        for w in ("SHORT", "EVENTSET", "METRICS", "LONG", "LUA"):
            if line.startswith(w):
                sec = w
                break
        else:
            words = line.split()
            if sec in ("EVENTSET", "METRICS") and not words:
                sec = None
            elif sec == "EVENTSET":
                ev.append((words[0], words[1]))
            elif sec == "METRICS":
                me.append((" ".join(words[:-1]), words[-1]))
    return ev, me

NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

def evaluate(formula, env):
    """LIKWID's way: each variable's name replaced by its value in the
    formula's text, longest names first; what is left must be arithmetic."""
    if " " in formula:
        return None
    expr = formula
    for name in sorted(env, key=len, reverse=True):
        expr = expr.replace(name, "(%r)" % float(env[name]))
    if re.search(r"[^0-9.eE+\-*/()^% ]", expr) or re.search(r"[A-Za-z_]", NUMBER.sub("0", expr)):
        return None          # a name without a value: must be left out
    try:
        return float(eval(expr.replace("^", "**"), {"__builtins__": {}}))
    except ZeroDivisionError:
        return float("nan")
    except SyntaxError:
        return None

def marker_file(path, groups, nthreads=3):
    """one region per group (tag r<k>), random counts and times"""
    lines = ["%d %d %d" % (nthreads, len(groups), len(groups))]
    lines += ["%d:r%d-%d" % (k, k, k) for k in range(len(groups))]
    values = {}
    for k, n in enumerate(groups):
        for t in range(nthreads):
            time = float("%e" % rng.uniform(0.01, 3))
            v = [float("%e" % rng.uniform(1e3, 5e9)) for _ in range(n)]
            values[(k, t)] = (time, v)
            lines.append("%d %d %d %d %e %d %s " % (k, k, t, rng.randint(1, 99), time, n,
                                                     " ".join("%e" % x for x in v)))
    open(path, "w").write("\n".join(lines) + "\n")
    return values

def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)

def convert(args):
    out = args[args.index("-o") + 1]
    if os.path.exists(out):
        os.remove(out)       # convert never overwrites
    return subprocess.run([cli, "convert"] + args, capture_output=True, text=True,
                          env=dict(os.environ, SCOPE_LIKWID_PERFGROUPS=pgdir))

def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-300

for arch, group in CASES:
    ev, me = group_file(os.path.join(pgdir, arch, group + ".txt"))
    mf = os.path.join(work, "%s_%s.txt" % (arch, group))
    values = marker_file(mf, [len(ev)])
    for clock in (CLOCK, None):
        out = mf[:-4] + ("_clock.h5" if clock else ".h5")
        args = [mf, "-o", out, "--group", group, "--arch", arch]
        p = convert(args + (["--clock", repr(clock), "--sockets", "2", "--numa-domains", "8"]
                            if clock else []))
        if p.returncode != 0:
            bad.append("%s %s: convert exited %d: %s" % (arch, group, p.returncode, p.stderr.strip()))
            continue
        with h5py.File(out, "r") as f:
            reg = f["rank0/likwid/regions"]
            reg = reg[list(reg)[0]]
            a = reg.attrs
            if [s(x) for x in a["event_names"]] != [e for _, e in ev]:
                bad.append("%s %s: event_names %s" % (arch, group, list(a["event_names"])))
            if [s(x) for x in a["counter_names"]] != [c for c, _ in ev]:
                bad.append("%s %s: counter_names %s" % (arch, group, list(a["counter_names"])))
            if s(a["group_name"]) != group:
                bad.append("%s %s: group_name %s" % (arch, group, a["group_name"]))
            got_names = [s(x) for x in a["metric_names"]]
            got = reg["metrics"][()]
        want_names, left = [], []
        for t in range(3):
            time, v = values[(0, t)]
            env = {c: v[i] for i, (c, _) in enumerate(ev)}
            env.update(time=time, true=1, false=0)
            if clock:
                env.update(inverseClock=1.0 / clock, num_sockets=2, num_numadomains=8)
            for name, formula in me:
                w = evaluate(formula, env)
                if w is None:
                    if t == 0:
                        left.append(name)
                    continue
                if t == 0:
                    want_names.append(name)
                m = want_names.index(name)
                if m < len(got_names) and got_names[m] == name and not close(got[m][t], w):
                    bad.append("%s %s thread %d: %s = %r, expected %r (%s)" %
                               (arch, group, t, name, got[m][t], w, formula))
        if got_names != want_names:
            bad.append("%s %s: metrics %s, expected %s" % (arch, group, got_names, want_names))
        for name in left:
            if name not in p.stderr:
                bad.append("%s %s: '%s' left out without saying so on stderr: %r" %
                           (arch, group, name, p.stderr))
        if clock is None and not any("inverseClock" in fm for _, fm in me):
            bad.append("%s %s: no metric with inverseClock: the no-clock case checks nothing" %
                       (arch, group))

# the node values that some formulas need must be there to be tested
if not any("num_numadomains" in fm for a, g in CASES
           for _, fm in group_file(os.path.join(pgdir, a, g + ".txt"))[1]):
    bad.append("no case with num_numadomains: --numa-domains is not tested")

# every group file of every architecture converts (one marker file per
# architecture with a region per group)
nfiles = 0
for arch in sorted(os.listdir(pgdir)):
    groups = sorted(g[:-4] for g in os.listdir(os.path.join(pgdir, arch)) if g.endswith(".txt"))
    if not groups:
        continue
    sizes = [len(group_file(os.path.join(pgdir, arch, g + ".txt"))[0]) for g in groups]
    mf = os.path.join(work, "all_%s.txt" % arch)
    marker_file(mf, sizes, nthreads=1)
    p = convert([mf, "-o", mf[:-4] + ".h5", "--group", ",".join(groups), "--arch", arch,
                 "--clock", "2e9"])
    if p.returncode != 0:
        bad.append("%s: converting with all %d groups exited %d: %s" %
                   (arch, len(groups), p.returncode, p.stderr.strip()[:2000]))
    nfiles += len(groups)
# refusals: one line naming what is wrong, exit 1 (2 for usage), nothing written
mf = os.path.join(work, "three.txt")
marker_file(mf, [3], nthreads=1)
bad_group = os.path.join(work, "BAD.txt")
open(bad_group, "w").write("SHORT x\nEVENTSET\nPMC0 A B\n")
broken = os.path.join(work, "BROKEN.txt")
open(broken, "w").write("EVENTSET\nPMC0 A\nPMC1 B\nPMC2 C\n\nMETRICS\nGood PMC0*2\n"
                        "Bad (PMC0+\nUnknown PMC9/PMC0\n")
for args, rc, want in (
        (["--group", "FLOPS_DP", "--arch", "skylakeX"], 1, "has 3 events, the group file of FLOPS_DP for skylakeX has 7"),
        (["--group", bad_group, "--arch", "any"], 1, bad_group + ":3: EVENTSET line of 3 words: expected COUNTER EVENT"),
        (["--group", "FLOPS_DP", "--arch", ".."], 1, "expected plain names"),
        (["--group", "NOSUCH", "--arch", "skylakeX"], 1, "NOSUCH.txt: cannot read"),
        (["--group", "FLOPS_DP"], 2, "--group and --arch go together"),
        (["--group", "FLOPS_DP", "--arch", "skylakeX", "--clock", "fast"], 2, "bad clock 'fast'"),
        (["--group", "FLOPS_DP", "--arch", "skylakeX", "--sockets", "0"], 2, "bad --sockets '0'"),
        (["--numa-domains", "2"], 2, "go with --group and --arch")):
    out = os.path.join(work, "refused.h5")
    p = convert([mf, "-o", out] + args)
    lines = p.stderr.strip().splitlines()
    if p.returncode != rc or not lines or want not in lines[0] or os.path.exists(out):
        bad.append("convert %s: exit %d, stderr %r, written %s: expected exit %d, '%s', nothing written"
                   % (" ".join(args), p.returncode, p.stderr, os.path.exists(out), rc, want))
# a metric LIKWID cannot compute is left out, the rest applies
out = os.path.join(work, "broken.h5")
p = convert([mf, "-o", out, "--group", broken, "--arch", "any"])
if p.returncode != 0 or broken + ":8: formula '(PMC0+'" not in p.stderr or \
        broken + ":9: formula 'PMC9/PMC0': PMC9 is not in the EVENTSET" not in p.stderr:
    bad.append("convert with a broken metric: exit %d, stderr %r" % (p.returncode, p.stderr))
else:
    with h5py.File(out, "r") as f:
        reg = f["rank0/likwid/regions"]
        reg = reg[list(reg)[0]]
        if [s(x) for x in reg.attrs["metric_names"]] != ["Good"] or \
                "left out" not in s(f["rank0"].attrs["likwid_status"]):
            bad.append("convert with a broken metric: metrics %s, status %s" %
                       (list(reg.attrs["metric_names"]), f["rank0"].attrs["likwid_status"]))

if len(CASES) < 6 or nfiles < 100:
    bad.append("only %d cases and %d group files found in %s" % (len(CASES), nfiles, pgdir))
for b in bad:
    print("FAIL:", b)
if not bad:
    import shutil
    shutil.rmtree(work)
else:
    print("files in", work)
print("%d cases, %d group files: %s" % (len(CASES), nfiles, "failed" if bad else "ok"))
sys.exit(1 if bad else 0)
