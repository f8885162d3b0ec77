#!/usr/bin/env python3
"""Compares the DOM Chromium built from a report (--dump-dom) with the
report itself: the same charts in the same order, the same number of rects
in each, the same region titles (escaped text decoded alike), no script.

usage: dom_check.py DOM.html REPORT.html
Exit 0 ok, 1 a difference.
"""
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charts = []        # [class, rects, titles]
        self.depth = 0          # nesting inside the current chart svg
        self.in_title = False
        self.scripts = 0
        self.title = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and "chart" in (a.get("class") or "").split():
            self.charts.append([a["class"], 0, []])
            self.depth = 1
            return
        if self.depth:
            if tag == "svg":
                self.depth += 1
            if tag == "rect":
                self.charts[-1][1] += 1
            if tag == "title":
                self.in_title, self.title = True, []

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg" and self.depth:
            self.depth -= 1

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "title" and self.in_title:
            self.charts[-1][2].append("".join(self.title))
            self.in_title = False
        if tag == "svg":
            self.depth -= 1

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)


def report_charts(path):
    root = ET.parse(path).getroot()
    out = []
    for el in root.iter():
        if el.tag.rsplit("}", 1)[-1] == "svg" and "chart" in (el.get("class") or "").split():
            rects = sum(1 for x in el.iter() if x.tag.rsplit("}", 1)[-1] == "rect")
            titles = ["".join(x.itertext()) for x in el.iter() if x.tag.rsplit("}", 1)[-1] == "title"]
            out.append([el.get("class"), rects, titles])
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    d = Dom()
    d.feed(open(sys.argv[1], encoding="utf-8", errors="replace").read())
    want = report_charts(sys.argv[2])
    fails = []
    if d.scripts:
        fails.append("the DOM has %d script elements" % d.scripts)
    if [c[0] for c in d.charts] != [c[0] for c in want]:
        fails.append("charts %s, expected %s" % ([c[0] for c in d.charts], [c[0] for c in want]))
    else:
        for got, exp in zip(d.charts, want):
            if got[1] != exp[1]:
                fails.append("%s: %d rects in the DOM, %d in the report" % (exp[0], got[1], exp[1]))
            if got[2] != exp[2]:
                diff = [(a, b) for a, b in zip(got[2], exp[2]) if a != b][:3]
                fails.append("%s: titles differ (%d vs %d), e.g. %s" % (exp[0], len(got[2]), len(exp[2]), diff))
    if not want:
        fails.append("the report has no chart")
    for f in fails:
        print("dom_check: FAIL: %s" % f)
    if fails:
        return 1
    print("dom_check: ok (%d charts, %d rects)" % (len(want), sum(c[1] for c in want)))
    return 0


sys.exit(main())
