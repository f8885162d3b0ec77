#!/usr/bin/python3
"""docs/CI.md's recipes, run as far as they can run here: the shell steps
of the GitHub Actions workflow (its `run:` lines) and of the GitLab job
(its `script:` lines), in order, in a fresh directory, with the built
scope-likwid first in PATH, `make app` making ./app (the bundled solver),
and a baseline perf/base.h5 from a first run of the same steps (the main
branch's run). Then the compare step alone on a regression (mk_result:
solve 50 % slower) and on a missing input. Checked: every step but the
comparison exits 0; the comparison of two runs exits 0 or 1 (timing noise
may make either), of the regression 1, of a missing input 2; its table on
stdout; the JUnit file the GitLab job reports and the workflow uploads
(junit_check.py); GitHub's ::error lines and the step summary
($GITHUB_STEP_SUMMARY set to a file here); every path the recipes upload.
The actions (checkout, upload-artifact) are GitHub's and do not run here.
    ci_recipe.py CI.md SCOPE_LIKWID SOLVER MK_RESULT
Exit 0, or 1 with one line per failed check."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from junit_check import check_junit  # noqa: E402

ci_md, cli, solver, mk = (os.path.abspath(a) for a in sys.argv[1:5])
text = open(ci_md, encoding="utf-8").read()
blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
    return ok


github = [b for b in blocks if "jobs:" in b]
gitlab = [b for b in blocks if "script:" in b]
if not (check(len(github) == 1, "CI.md: one GitHub Actions workflow (a yaml block with jobs:)")
        and check(len(gitlab) == 1, "CI.md: one GitLab job (a yaml block with script:)")):
    print("\n".join("FAIL: " + f for f in fails), file=sys.stderr)
    sys.exit(1)
github, gitlab = github[0], gitlab[0]


def list_under(block, key):
    """The items of a YAML list (`- x`) or literal block (`key: |`) under key."""
    lines = block.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)" + re.escape(key) + r":\s*\|?\s*$", line)
        if not m:
            continue
        for nxt in lines[i + 1:]:
            if len(nxt) - len(nxt.lstrip()) <= len(m.group(1)):
                break
            out.append(re.sub(r"^\s*(- )?", "", nxt).strip())
    return out


gh_steps = re.findall(r"^\s*(?:- )?run: (.+)$", github, re.M)
gl_steps = list_under(gitlab, "script")
check(all(not s.startswith("|") for s in gh_steps), "CI.md: the workflow's run: steps are one line each")
check(gh_steps and "scope-likwid diff" in gh_steps[-1], "CI.md: the workflow's last run: step is the diff")
check(gl_steps and "scope-likwid diff" in gl_steps[-1], "CI.md: the GitLab script ends with the diff")
gh_uploads = list_under(github, "path")
gl_uploads = list_under(gitlab, "paths")
gl_junit = re.findall(r"^\s*junit: (\S+)$", gitlab, re.M)
check(len(gl_junit) == 1, "CI.md: the GitLab job reports one junit file")

env = dict(os.environ, PATH=os.path.dirname(cli) + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C")
env.pop("GITHUB_STEP_SUMMARY", None)


def run(cmd, cwd, extra=None):
    r = subprocess.run(cmd, shell=True, cwd=cwd, env=dict(env, **(extra or {})),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def fresh():
    d = tempfile.mkdtemp(prefix="sl-ci-recipe.")
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write("app:\n\tcp %s app\n" % solver)
    os.mkdir(os.path.join(d, "perf"))
    return d


def steps_ok(name, steps, cwd, extra=None):
    """Runs the steps but the last (the diff); all must exit 0."""
    for s in steps[:-1]:
        rc, out, err = run(s, cwd, extra)
        if not check(rc == 0, "%s: step '%s' exited %d: %s" % (name, s, rc, err.strip()[-300:])):
            return False
    return True


def junit_ok(path, what, **counts):
    """check_junit as one check."""
    try:
        check_junit(path, **counts)
    except Exception as e:  # AssertionError, OSError, ParseError
        check(False, "%s: %s" % (what, e))


def read(path):
    """The file's text, "" when there is none."""
    try:
        return open(path, encoding="utf-8").read()
    except OSError:
        return ""


def mk_result(path, spec):
    if os.path.exists(path):
        os.remove(path)  # the writer never overwrites
    subprocess.run([mk, path], input=spec, text=True, check=True, stdout=subprocess.DEVNULL)


def recipe(name, steps, junit, uploads, summary):
    d = fresh()
    try:
        recipe_in(d, name, steps, junit, uploads, summary)
    finally:
        subprocess.run(["rm", "-rf", d])


def recipe_in(d, name, steps, junit, uploads, summary):
    extra = {"GITHUB_STEP_SUMMARY": os.path.join(d, "summary.md")} if summary else {}
    # the baseline: the same steps once, as the main branch's run
    if not steps_ok(name + " (baseline)", steps, d):
        return
    os.replace(os.path.join(d, "new.h5"), os.path.join(d, "perf", "base.h5"))
    if not steps_ok(name, steps, d, extra):
        return
    rc, out, err = run(steps[-1], d, extra)
    check(rc in (0, 1), "%s: the diff of two runs exited %d (0 or 1 expected): %s" % (name, rc, err.strip()))
    check(err.strip().splitlines()[-1:] and re.match(r"scope-likwid: diff: (pass|regression): ", err.strip().splitlines()[-1]),
          "%s: the diff's last stderr line: %r" % (name, err.strip()[-200:]))
    rows = [line for line in out.splitlines() if line.startswith("| rank0 ")]
    timing = [line for line in rows if "| timing |" in line]  # (LIKWID's rows where it counts)
    check(len(timing) == 3, "%s: the table's rows of init, solve-step and io phase: %s" % (name, out))
    junit_ok(os.path.join(d, junit), name, tests=len(rows))
    for u in uploads:
        check(os.path.exists(os.path.join(d, u)), "%s: %s, uploaded, not made" % (name, u))
    if summary:
        s = read(extra["GITHUB_STEP_SUMMARY"])
        check("### scope-likwid diff: perf/base.h5 vs new.h5" in s and "| Rank | Region |" in s,
              "%s: the step summary: %s" % (name, s))
    # a regression: solve 50 % slower
    mk_result(os.path.join(d, "perf", "base.h5"), "rank 0\nt solve 1000000 1000000\n")
    mk_result(os.path.join(d, "new.h5"), "rank 0\nt solve 1500000 1500000\n")
    rc, out, err = run(steps[-1], d, extra)
    check(rc == 1, "%s: the diff of a regression exited %d, expected 1: %s" % (name, rc, err.strip()))
    junit_ok(os.path.join(d, junit), name + ": regression", tests=1, failures=1, errors=0)
    if summary:
        check("::error title=scope-likwid diff::rank0 solve (timing time/call [ms], median): slower +50.0%25" in out,
              "%s: regression: no ::error line: %s" % (name, out))
        check("**regression: 1 of 1 comparisons failed" in read(extra["GITHUB_STEP_SUMMARY"]),
              "%s: regression: not in the step summary" % name)
    # a broken pipeline: the new result missing
    os.remove(os.path.join(d, "new.h5"))
    rc, out, err = run(steps[-1], d, extra)
    check(rc == 2, "%s: the diff of a missing input exited %d, expected 2" % (name, rc))
    junit_ok(os.path.join(d, junit), name + ": missing input", tests=1, failures=0, errors=1)
    if summary:
        check("::error title=scope-likwid diff::bad input, nothing compared" in out,
              "%s: missing input: no ::error line: %s" % (name, out))


gh_junit = re.findall(r"--junit (\S+)", gh_steps[-1] if gh_steps else "")
check(len(gh_junit) == 1 and gh_junit[0] in gh_uploads, "CI.md: the workflow uploads the JUnit file it writes")
if not fails:
    recipe("GitHub Actions", gh_steps, gh_junit[0], gh_uploads, summary=True)
    recipe("GitLab CI", gl_steps, gl_junit[0], gl_uploads, summary=False)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("ci-recipe: %d GitHub steps, %d GitLab steps run; %d checks failed" % (len(gh_steps), len(gl_steps), len(fails)))
sys.exit(1 if fails else 0)
