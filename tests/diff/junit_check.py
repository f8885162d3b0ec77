#!/usr/bin/python3
"""A JUnit XML file as Jenkins and GitLab read it, checked with Python's
xml.etree against the JUnit schema's required elements: a testsuites root,
testsuite elements with name, tests, failures and errors (the counts
matching their testcases), testcase elements with name and classname, at
most one failure per testcase and a message on every failure and error,
the children of a testsuite in the schema's order.
    junit_check.py FILE TESTS FAILURES ERRORS   (a count '-': not checked)
Exit 0, or 1 with the first problem."""
import sys
import xml.etree.ElementTree as ET

ORDER = ["properties", "testcase", "system-out", "system-err"]


def check_junit(path, tests=None, failures=None, errors=None):
    """Returns (testcases, failures, errors) of the one testsuite; raises
    AssertionError naming what is wrong."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites", f"{path}: root {root.tag}: expected testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1, f"{path}: {len(suites)} testsuites: expected 1"
    s = suites[0]
    for el in (root, s):
        for a in ("name", "tests", "failures", "errors"):
            assert el.get(a) is not None, f"{path}: {el.tag} lacks {a}"
    cases = s.findall("testcase")
    nfail = sum(len(c.findall("failure")) for c in cases)
    nerr = sum(len(c.findall("error")) for c in cases)
    nskip = sum(len(c.findall("skipped")) for c in cases)
    for el in (root, s):
        got = (int(el.get("tests")), int(el.get("failures")), int(el.get("errors")),
               int(el.get("skipped", nskip)))
        assert got == (len(cases), nfail, nerr, nskip), f"{path}: {el.tag} counts {got}, testcases hold {(len(cases), nfail, nerr, nskip)}"
    for c in cases:
        assert c.get("name") and c.get("classname"), f"{path}: testcase without name or classname: {ET.tostring(c)}"
        assert len(c.findall("failure")) <= 1, f"{path}: two failures in one testcase"
        for f in c.findall("failure") + c.findall("error"):
            assert f.get("message"), f"{path}: {f.tag} without message"
    kids = [k.tag for k in s]
    assert all(k in ORDER for k in kids), f"{path}: testsuite children {kids}"
    assert kids == sorted(kids, key=ORDER.index), f"{path}: testsuite children out of order: {kids}"
    for want, got, what in ((tests, len(cases), "testcases"), (failures, nfail, "failures"),
                            (errors, nerr, "errors")):
        assert want is None or want == got, f"{path}: {got} {what}, expected {want}"
    return len(cases), nfail, nerr


if __name__ == "__main__":
    want = [None if a == "-" else int(a) for a in sys.argv[2:5]]
    try:
        check_junit(sys.argv[1], *want)
    except (AssertionError, ET.ParseError, OSError) as e:
        print(f"junit_check: {e}", file=sys.stderr)
        sys.exit(1)
