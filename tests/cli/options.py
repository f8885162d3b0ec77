#!/usr/bin/python3
"""Every option of every subcommand comes from one source, the getopt_long
table (struct option) and short-option string of tools/cli/cmd_CMD.c, and
is shown wherever options are listed:
  1. on an option line of `scope-likwid CMD --help` (an indented line that
     starts with '-'), by each of its names, and those lines name no other;
  2. in the usage lines of CMD --help (by one of its names; --help aside);
  3. in CMD's entry of the top-level `scope-likwid help` (likewise), which
     lists exactly the commands of tools/cli/scope-likwid.c's table;
  4. offered by the bash completion (dist/scope-likwid.bash) after
     `scope-likwid CMD -`, each name, and nothing else.
run has no table: every word before '--' but a first -h/--help goes to
likwid-perfctr, so its options are -h and --help (and the completion adds
'--'). Prints one line per problem; exit 1 if any.
    options.py SOURCE_ROOT CLI"""
import os
import re
import subprocess
import sys
import tempfile

root, cli = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
cli_dir = os.path.join(root, "tools", "cli")
problems = []
NAME = re.compile(r"(?:^|[\s,\[|])(--?[a-zA-Z][a-zA-Z-]*)")


def table(cmd):
    """{long name: short letter or None} of cmd's getopt table, as the
    source declares it."""
    src = open(os.path.join(cli_dir, "cmd_%s.c" % cmd), encoding="utf-8").read()
    m = re.search(r"struct option \w+\[\] = \{(.*?)\};", src, re.S)
    if not m:
        help_words = re.findall(r'!strcmp\(argv\[1\], "(--?[a-z-]+)"\)', src)
        if sorted(help_words) != ["--help", "-h"]:
            problems.append("cmd_%s.c: no struct option table and not -h/--help alone" % cmd)
        return {"help": "h"}
    short = re.search(r'sl_getopt\("%s", argc, argv, "([^"]*)"' % cmd, src)
    letters = set(short.group(1).replace(":", "").replace("+", "")) if short else set()
    opts = {}
    for name, val in re.findall(r'\{"([a-z-]+)", \w+_argument, NULL, ([^}]+)\}', m.group(1)):
        c = re.fullmatch(r"'(.)'", val.strip())
        opts[name] = c.group(1) if c and c.group(1) in letters else None
    if not opts:
        problems.append("cmd_%s.c: no option read from its table" % cmd)
    return opts


def run(*args):
    return subprocess.run([cli] + list(args), capture_output=True, text=True, timeout=60).stdout


def names(text):
    return set(NAME.findall(text))


def completion(cmd):
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(cli, os.path.join(tmp, "scope-likwid"))
        env = dict(os.environ, PATH=tmp + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
        out = subprocess.run(
            ["bash", "-c", '. "$1"; COMP_WORDS=(scope-likwid "$2" -); COMP_CWORD=2; _scope_likwid; '
             'printf "%s\\n" "${COMPREPLY[@]}"', "sh",
             os.path.join(root, "dist", "scope-likwid.bash"), cmd],
            capture_output=True, text=True, env=env, cwd=tmp, timeout=60).stdout
    return set(w for w in out.split("\n") if w)


top = run("help")
src = open(os.path.join(cli_dir, "scope-likwid.c"), encoding="utf-8").read()
cmds = re.findall(r'\{"(\w+)", sl_cmd_(\w+), -?\d+\}', src)
if not cmds:
    problems.append("tools/cli/scope-likwid.c: no command table found")
# the top-level entries: "  CMD ..." and the more indented lines after it
entries, cur = {}, None
block = top.split("commands:\n", 1)[-1].split("\n\n", 1)[0]
for line in block.split("\n"):
    m = re.match(r"  ([a-z]+) ", line)
    if m:
        cur = m.group(1)
    if cur:
        entries[cur] = entries.get(cur, "") + line + "\n"
if sorted(entries) != sorted(c for c, _ in cmds):
    problems.append("scope-likwid help lists commands %s: expected %s"
                    % (sorted(entries), sorted(c for c, _ in cmds)))

checked = 0
for cmd, fn in cmds:
    opts = table(fn)
    helptext = run(cmd, "--help")
    option_lines = "\n".join(l for l in helptext.split("\n") if re.match(r" +-", l))
    usage = helptext.split("\n\n", 1)[0]
    want = set()
    for long_name, short in opts.items():
        both = ["--" + long_name] + (["-" + short] if short else [])
        want.update(both)
        checked += 1
        for n in both:
            if n not in names(option_lines):
                problems.append("%s --help: no option line for %s: expected every option of "
                                "cmd_%s.c's table" % (cmd, n, fn))
        if long_name == "help":
            continue
        if not names(usage) & set(both):
            problems.append("%s --help: %s not in the usage lines: expected every option there"
                            % (cmd, " or ".join(both)))
        if not names(entries.get(cmd, "")) & set(both):
            problems.append("scope-likwid help: %s not in the entry of %s: expected every option"
                            % (" or ".join(both), cmd))
    for n in sorted(names(option_lines) - want):
        problems.append("%s --help: an option line names %s: expected only the options of "
                        "cmd_%s.c's table" % (cmd, n, fn))
    offered = completion(cmd) - ({"--"} if cmd == "run" else set())
    if offered != want:
        problems.append("completion of 'scope-likwid %s -': %s: expected %s"
                        % (cmd, " ".join(sorted(offered)) or "nothing", " ".join(sorted(want))))

for p in problems:
    print(p)
if checked == 0:
    print("no option checked: expected some")
    sys.exit(1)
if not problems:
    print("ok: %d options of %d commands in their tables, --help, help and the completion"
          % (checked, len(cmds)))
sys.exit(1 if problems else 0)
