"""Marker calls through the real pylikwid (scripts/likwid-version-check.sh):
markerinit, then NTHREADS threads each markerthreadinit and 10 calls of
"py-work", a markergetregion of it (pylikwid sizes its answer from LIKWID's
active group), markerclose. Prints the calls each thread saw.

usage: pylikwid_app.py NTHREADS"""
import sys
import threading

import pylikwid

CALLS = 10


def work(out, i):
    pylikwid.markerthreadinit()
    for _ in range(CALLS):
        pylikwid.markerstartregion("py-work")
        sum(k * 0.5 for k in range(20000))
        pylikwid.markerstopregion("py-work")
    nr, events, _, count = pylikwid.markergetregion("py-work")
    out[i] = "thread %d: %d calls, %d events" % (i, count, len(events))


def main():
    n = int(sys.argv[1])
    pylikwid.markerinit()
    out = [None] * n
    threads = [threading.Thread(target=work, args=(out, i)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pylikwid.markerclose()
    print("\n".join(out))


if __name__ == "__main__":
    main()
