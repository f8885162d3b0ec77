#!/usr/bin/python3
"""convert --group --arch against likwid-perfctr's own printed metrics:
Debian's likwid-perfctr counts on the emulated PMU (scripts/emulated-node-
check.sh, tests/emulated: zen2 and skylake, groups FLOPS_DP, CLOCK, MEM);
its result files' counters and times (full_api, read back through LIKWID)
are written out as a marker file, converted with the group file of that
architecture, and every metric likwid-perfctr printed (4 decimals) must be
what convert computed, per region and HWThread. The clock LIKWID measured
for itself is taken from its printed Clock [MHz] (FIXC1/FIXC2 of the first
region); num_sockets and num_numadomains are those of the topology LIKWID
was given.

usage: perfctr_metrics.py SRC_DIR BUILD_DIR SCOPE_LIKWID
Exit 77 (skip) when the emulated PMU is not in the tree or cannot run."""
import os, re, shutil, subprocess, sys, tempfile

src, build, cli = sys.argv[1:4]
script = os.path.join(src, "scripts", "emulated-node-check.sh")
if not os.path.exists(script) or not os.path.exists(os.path.join(build, "tests/emulated/libemulpmu.so")):
    print("SKIP: the emulated PMU (scripts/emulated-node-check.sh, tests/emulated) is not in this tree")
    sys.exit(77)
try:
    import h5py
except ImportError:
    print("SKIP: no h5py (Debian package python3-h5py)")
    sys.exit(77)

work = tempfile.mkdtemp(prefix="sl-perfctr-metrics.")
art = os.path.join(work, "art")
p = subprocess.run(["sh", script, build, art], capture_output=True, text=True,
                   env=dict(os.environ, SL_EMUL_ARCHS="zen2 skylake"))
if p.returncode == 77:
    print("SKIP: " + (p.stdout.strip().splitlines() or ["emulated-node-check skipped"])[-1])
    sys.exit(77)
bad = []
if p.returncode != 0:
    print("FAIL: emulated-node-check exited %d:\n%s%s" % (p.returncode, p.stdout, p.stderr))
    sys.exit(1)

def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)

def perfctr_metrics(path):
    """{tag: {cpu: {metric: value}}} from likwid-perfctr's per-thread tables"""
    out, tag, head, table = {}, None, None, None
    for line in open(path):
        m = re.match(r"^Region (.*), Group \d+: ", line)
        if m:
            tag = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if not cells:
            table = None if not line.startswith("+") else table
            continue
        if cells[0] == "Metric":
            table = [int(c.split()[1]) for c in cells[1:]] if all(c.startswith("HWThread") for c in cells[1:]) else None
            continue
        if table is not None and tag is not None:
            for cpu, v in zip(table, cells[1:]):
                out.setdefault(tag, {}).setdefault(cpu, {})[cells[0]] = float(v)
    return out

compared = skipped = 0
for arch in ("zen2", "skylake"):
    for group in sorted(os.listdir(os.path.join(art, arch))):
        d = os.path.join(art, arch, group)
        if not os.path.isdir(d):
            continue
        printed = perfctr_metrics(os.path.join(d, "perfctr.txt"))
        with h5py.File(os.path.join(d, "result.h5"), "r") as f:
            regs = [(s(r.attrs["tag"]), r["cpus"][()], r["call_counts"][()], r["times"][()],
                     r["events"][()], [s(c) for c in r.attrs["counter_names"]])
                    for r in f["rank0/likwid/regions"].values()]
        nthreads = max(len(r[1]) for r in regs)
        lines = ["%d %d 1" % (nthreads, len(regs))]
        lines += ["%d:%s-0" % (i, r[0]) for i, r in enumerate(regs)]
        for i, (tag, cpus, counts, times, ev, _) in enumerate(regs):
            for t in range(len(cpus)):
                lines.append("%d 0 %d %d %r %d %s " % (i, cpus[t], counts[t], float(times[t]), len(ev),
                                                        " ".join(repr(float(x)) for x in ev[:, t])))
        mf = os.path.join(work, "%s_%s.txt" % (arch, group))
        open(mf, "w").write("\n".join(lines) + "\n")
        # LIKWID's clock in likwid-perfctr: Clock [MHz] = 1e-6 * FIXC1/FIXC2 * clock
        clock_args = []
        tag, cpus, _, _, ev, ctr = regs[0]
        if "FIXC1" in ctr and "FIXC2" in ctr and "Clock [MHz]" in printed.get(tag, {}).get(int(cpus[0]), {}):
            mhz = printed[tag][int(cpus[0])]["Clock [MHz]"]
            clock = mhz * 1e6 * ev[ctr.index("FIXC2"), 0] / ev[ctr.index("FIXC1"), 0]
            clock_args = ["--clock", repr(clock)]
        # the node LIKWID was given (num_sockets, num_numadomains)
        topo = open(os.path.join(art, arch, "likwid_topo.cfg")).read()
        for opt, key in (("--sockets", "numSockets"), ("--numa-domains", "numberOfNodes")):
            m = re.search(key + r" = (\d+)", topo)
            if m:
                clock_args += [opt, m.group(1)]
        out = mf[:-4] + ".h5"
        c = subprocess.run([cli, "convert", mf, "-o", out, "--group", group, "--arch", arch] + clock_args,
                           capture_output=True, text=True)
        if c.returncode != 0:
            bad.append("%s %s: convert exited %d: %s" % (arch, group, c.returncode, c.stderr.strip()))
            continue
        with h5py.File(out, "r") as f:
            ours = {}
            for r in f["rank0/likwid/regions"].values():
                names = [s(x) for x in r.attrs["metric_names"]]
                for t, cpu in enumerate(r["cpus"][()]):
                    ours[(s(r.attrs["tag"]), int(cpu))] = {n: r["metrics"][()][m, t] for m, n in enumerate(names)}
        for tag, per_cpu in printed.items():
            for cpu, metrics in per_cpu.items():
                mine = ours.get((tag, cpu))
                if mine is None:
                    bad.append("%s %s: region %s HWThread %d not in convert's file" % (arch, group, tag, cpu))
                    continue
                for name, want in metrics.items():
                    if name not in mine:
                        if not clock_args and "Clock" in name or "Runtime unhalted" in name and not clock_args:
                            skipped += 1
                        elif "needs the node's topology" in c.stderr and name in c.stderr:
                            skipped += 1
                        else:
                            bad.append("%s %s %s@%d: %s printed %r, missing in convert's file (%s)" %
                                       (arch, group, tag, cpu, name, want, c.stderr.strip()))
                        continue
                    got = float(mine[name])
                    if abs(got - want) > 5.01e-5 + 1e-6 * abs(want):
                        bad.append("%s %s %s@%d: %s = %r, likwid-perfctr printed %r" %
                                   (arch, group, tag, cpu, name, got, want))
                    compared += 1
if compared < 100:
    bad.append("only %d metric values compared" % compared)
for b in bad:
    print("FAIL:", b)
print("%d metric values as likwid-perfctr printed them, %d left out (topology or no clock): %s"
      % (compared, skipped, "failed" if bad else "ok"))
if bad:
    print("files in", work)
else:
    shutil.rmtree(work)
sys.exit(1 if bad else 0)
