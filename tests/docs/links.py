#!/usr/bin/python3
"""Every relative link in README.md and docs/*.md resolves to a file of the
repository, and its #anchor (if any) to a heading of that file (GitHub's
slugs). So does every `path` in backticks that names a file of the tree
(starting with one of the top folders, or ending in .md). Prints one line
per broken reference, "FILE:LINE: what: expected what"; exit 1 if any.
    links.py SOURCE_ROOT"""
import glob
import os
import re
import sys

root = sys.argv[1]
files = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
TOPS = ("core/", "shim/", "tools/", "tests/", "docs/", "scripts/", "examples/", "bench/", ".ci/",
        "helpers/", "h5/")
# a code span with these is a pattern or a placeholder, not a path
PATTERN = re.compile(r"[*<>{}\[\]$%|]|\.\.\.|[A-Z]{3,}(?![a-z])")


def slugs(path):
    """GitHub's anchors for the headings of a markdown file."""
    out, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip()
        s = re.sub(r"[^\w\- ]", "", text.lower().replace("`", "")).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


bad = 0
checked = 0
for f in files:
    here = os.path.dirname(f)
    fence = False
    for no, line in enumerate(open(os.path.join(root, f), encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for m in LINK.finditer(line):
            t = m.group(1)
            if re.match(r"[a-z]+:", t):
                continue  # http:, https:, mailto: are not checked (no network)
            checked += 1
            path, _, anchor = t.partition("#")
            target = os.path.normpath(os.path.join(root, here, path)) if path else os.path.join(root, f)
            if not os.path.exists(target):
                print("%s:%d: link %s: no such file: expected a file of the repository" % (f, no, t))
                bad = 1
            elif anchor and target.endswith(".md") and anchor not in slugs(target):
                print("%s:%d: link %s: no heading with that anchor in %s: expected one of %s"
                      % (f, no, t, os.path.relpath(target, root), ", ".join(sorted(slugs(target)))))
                bad = 1
        for m in CODE.finditer(line):
            t = m.group(1).rstrip(".,:;")
            if PATTERN.search(t) or not (t.startswith(TOPS) or t.endswith(".md")):
                continue
            checked += 1
            path = t.split(":")[0]
            if not (os.path.exists(os.path.join(root, path)) or
                    os.path.exists(os.path.join(root, here, path))):
                print("%s:%d: `%s`: no such file: expected a file of the repository" % (f, no, t))
                bad = 1
if checked == 0:
    print("no link or path found: expected some")
    sys.exit(1)
if not bad:
    print("ok: %d links and paths in %d files" % (checked, len(files)))
sys.exit(bad)
