#!/usr/bin/python3
"""Runs README.md's runnable blocks against the build tree and compares
their output with the README's, so the README cannot drift from the code.

A runnable block is a ```sh or ```python fence right after the line
<!-- runnable --> (or <!-- runnable: needs pandas --> for one that needs
the optional package). The next fenced block, when it is ```text and no
other fence comes first, is the output it must print (stdout and stderr
together). In the expected text, a line "..." stands for any number of
lines and "..." inside a line for any text; runs of blanks and of '-'
count as one (table widths follow the numbers). Without a text block the
block must only exit 0.

Blocks run in order in one temporary directory standing in for a clone
that was built into build/ (build is a link to this build tree), as a user
types them into one shell: a block that exports a variable (PATH) leaves
it set for the blocks after it, unless it is a batch script (it runs
srun). Nothing else is set up: the blocks find scope-likwid and ./app as
written. Then every block runs again, in the same directory: a page's
blocks must bear being rerun. srun is a stand-in (SRUN below: a Slurm job 4242, step 0, of two
tasks run one after the other, taking --export=ALL,VAR=VALUE; a block that
runs it has SLURM_JOB_ID=4242, as a batch script has). The README shows
the output of a machine where LIKWID cannot count (every CI runner): where
it can, this skips.

    readme_blocks.py DOC BUILD_ROOT [--with-pandas]
Without --with-pandas the pandas blocks are left out; with it they run too,
and the test skips (77, one line) when pandas is missing. Exit 0 all passed,
1 a block failed (each failure: line, command, expected and actual)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

readme, build = (os.path.abspath(a) for a in sys.argv[1:3])
cli = os.path.join(build, "tools", "scope-likwid")
with_pandas = "--with-pandas" in sys.argv[3:]
PY = "/usr/bin/python3"

MARK = re.compile(r"^<!-- runnable(?:: needs (\w+))? -->\s*$")

# What srun does for a README block: job 4242, step 0, two tasks (in turn,
# so their output comes in rank order), the --export variables set.
SRUN = r"""#!/bin/sh
while [ $# -gt 0 ]; do
    case $1 in
    --export=*)
        vars=${1#--export=}
        old_ifs=$IFS; IFS=,
        for v in $vars; do [ "$v" = ALL ] || export "$v"; done
        IFS=$old_ifs
        shift ;;
    -*) shift ;;
    *) break ;;
    esac
done
export SLURM_JOB_ID=4242 SLURM_STEP_ID=0 SLURM_NTASKS=2
for r in 0 1; do SLURM_PROCID=$r "$@" || exit $?; done
"""


def blocks(path):
    """(line, lang, code, expected or None, needs) for each runnable block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        needs = m.group(1)
        j = i + 1
        fence = re.match(r"^```(\w+)\s*$", lines[j]) if j < len(lines) else None
        if not fence or fence.group(1) not in ("sh", "python"):
            sys.exit("%s:%d: <!-- runnable --> not followed by a ```sh or ```python block" % (path, i + 1))
        start = j + 1
        j = start
        while j < len(lines) and lines[j] != "```":
            j += 1
        code = "\n".join(lines[start:j]) + "\n"
        expected = None
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```") and not MARK.match(lines[k]):
            k += 1
        if k < len(lines) and lines[k] == "```text":
            e = k + 1
            while e < len(lines) and lines[e] != "```":
                e += 1
            expected = lines[k + 1:e]
        out.append((i + 1, fence.group(1), code, expected, needs))
        i = j + 1
    return out


def norm(line):
    line = re.sub(r"-+", "-", line.rstrip())
    return re.sub(r"[ \t]+", " ", line)


def line_matches(pattern, line):
    parts = [re.escape(p) for p in norm(pattern).split("...")]
    return re.fullmatch(".*".join(parts), norm(line)) is not None


def matches(expected, actual):
    """expected lines (with ... wildcards) against actual lines."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and line_matches(expected[0], actual[0]) and matches(expected[1:], actual[1:])


def main():
    found = blocks(readme)
    if not found:
        print("no runnable block in %s: expected some" % readme)
        return 1
    if with_pandas and subprocess.run([PY, "-c", "import pandas"], capture_output=True).returncode:
        print("SKIP: pandas missing (Debian package python3-pandas)")
        return 77
    tmp = tempfile.mkdtemp(prefix="readme-blocks-")
    try:
        os.symlink(build, os.path.join(tmp, "build"))
        os.mkdir(os.path.join(tmp, ".bin"))
        with open(os.path.join(tmp, ".bin", "srun"), "w") as f:
            f.write(SRUN)
        os.chmod(os.path.join(tmp, ".bin", "srun"), 0o755)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SCOPE_LIKWID_", "LIKWID_", "SIMLIKWID_", "SLURM_")) and
               k not in ("LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH")}
        env.update(PATH=os.path.join(tmp, ".bin") + ":/usr/local/bin:/usr/bin:/bin",
                   OMP_NUM_THREADS="2", LC_ALL="C")
        probe = subprocess.run([cli, "run", "--", "/bin/true"], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=120)
        if "cannot count" not in probe.stderr:
            print("SKIP: LIKWID counts on this host; README.md shows a host where it cannot")
            return 77
        for f in os.listdir(tmp):
            if f.endswith(".h5"):
                os.remove(os.path.join(tmp, f))
        dump = os.path.join(tmp, ".env")
        failed, ran = 0, 0
        # twice, in the same directory: a user reruns what the page shows
        for again in (False, True):
            for line, lang, code, expected, needs in found:
                if needs and not (needs == "pandas" and with_pandas):
                    continue
                ran += 1
                # a block that runs srun is a batch script: the job's id is set,
                # and what it exports stays in it
                batch = "srun " in code
                benv = dict(env, SLURM_JOB_ID="4242") if batch else env
                if lang == "sh":  # then the environment it leaves, for the next blocks
                    argv = ["sh", "-ec", code + "\nenv -0 >'%s'\n" % dump]
                else:
                    argv = [PY, "-c", code]
                if os.path.exists(dump):
                    os.remove(dump)
                r = subprocess.run(argv, cwd=tmp, env=benv, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=120)
                if not batch and os.path.exists(dump):
                    left = dict(kv.split("=", 1) for kv in open(dump).read().split("\0") if "=" in kv)
                    env = {k: v for k, v in left.items() if k not in ("PWD", "OLDPWD", "SHLVL", "_")}
                actual = r.stdout.rstrip("\n").split("\n") if r.stdout.strip() else []
                ok = r.returncode == 0 and (expected is None or matches(expected, actual))
                print("%s %s:%d (%s)%s" % ("ok  " if ok else "FAIL", os.path.basename(readme), line,
                                           lang, ", run again" if again else ""))
                if not ok:
                    failed = 1
                    print("  exit %d%s" % (r.returncode, "" if r.returncode == 0 else ": expected 0"))
                    print("  code:\n" + "".join("    " + c + "\n" for c in code.rstrip("\n").split("\n")), end="")
                    if expected is not None:
                        print("  expected:\n" + "".join("    " + e + "\n" for e in expected), end="")
                    print("  actual:\n" + "".join("    " + a + "\n" for a in actual), end="")
        if ran == 0:
            print("no block ran: expected some")
            return 1
        print("%d blocks ran, %s" % (ran, "some failed" if failed else "all passed"))
        return failed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


sys.exit(main())
