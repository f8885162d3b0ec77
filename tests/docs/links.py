#!/usr/bin/python3
"""Every relative link in README.md, bench/README.md and docs/*.md resolves
to a file of the repository, and its #anchor (if any) to a heading of that file (GitHub's
slugs). So does every `path` in backticks that names a file of the tree
(starting with one of the top folders, or ending in .md). Every section
named after a page, in those pages and in the man pages (docs/man/*.in),
as in (SHIM.md, "Timing") or ([SHIM.md](SHIM.md), "Timing"), is a heading
of that page (or one side of its ':', or the heading without a last
parenthesis). Prints one line per
broken reference, "FILE:LINE: what: expected what"; exit 1 if any.
    links.py SOURCE_ROOT"""
import glob
import os
import re
import sys

root = sys.argv[1]
files = ["README.md", "bench/README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
TOPS = ("core/", "shim/", "tools/", "tests/", "docs/", "scripts/", "examples/", "bench/", ".ci/",
        "helpers/", "h5/")
# a code span with these is a pattern or a placeholder, not a path
PATTERN = re.compile(r"[*<>{}\[\]$%|]|\.\.\.|[A-Z]{3,}(?![a-z])")


# PAGE.md, "Section" (the page possibly a link: [PAGE.md](target))
SECTION = re.compile(r"([\w./-]+\.md)(?:\]\([^)\s]*\))?,\s+\"([^\"]+)\"")


def headings(path):
    """The headings of a markdown file as a section reference names them:
    lower case, without backticks; whole, or one side of their first ':',
    or without a last parenthesis ("Merged files (`merge`)")."""
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().replace("`", "").lower()
        out.add(text)
        out.update(side.strip() for side in text.split(":", 1))
        out.add(re.sub(r"\s*\([^)]*\)$", "", text))
    return out


def page_text(path):
    """(line number, text) of each line, man pages as read: roff's \\(dq a
    quote, \\- a dash, font escapes and request names dropped."""
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        if path.endswith(".in"):
            if line.startswith('.\\"'):
                continue
            line = re.sub(r"^\.[A-Za-z]+\s?", "", line)
            line = line.replace("\\(dq", '"').replace("\\-", "-").replace("\\(aq", "'")
            line = re.sub(r"\\f[BIRP]", "", line)
        yield no, line.rstrip("\n")


def section_refs(root, f):
    """The broken section references of f: a reference may span two lines."""
    bad, lines = [], list(page_text(os.path.join(root, f)))
    here = os.path.dirname(f)
    seen = set()
    for i, (no, line) in enumerate(lines):
        text = line + (" " + lines[i + 1][1] if i + 1 < len(lines) else "")
        for m in SECTION.finditer(text):
            if m.start() >= len(line) or (m.group(1), m.group(2)) in seen:
                continue  # begins on the next line: checked there
            seen.add((m.group(1), m.group(2)))
            page, name = m.group(1), m.group(2)
            cands = [os.path.join(root, here, page), os.path.join(root, page),
                     os.path.join(root, "docs", page)]
            target = next((c for c in cands if os.path.isfile(c)), None)
            if target is None:
                bad.append("%s:%d: section %s, \"%s\": no such page: expected a file of the "
                           "repository" % (f, no, page, name))
            elif name.replace("`", "").lower() not in headings(target):
                bad.append("%s:%d: section %s, \"%s\": no such heading in %s: expected one of its "
                           "headings" % (f, no, page, name, os.path.relpath(target, root)))
    return bad


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
mans = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "man", "*.in")))
for f in files + mans:
    for line in section_refs(root, f):
        print(line)
        bad = 1
    checked += 1
if checked == 0:
    print("no link or path found: expected some")
    sys.exit(1)
if not bad:
    print("ok: %d links, paths and pages' sections in %d files" % (checked, len(files) + len(mans)))
sys.exit(bad)
