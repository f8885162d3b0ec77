"""Marker calls from Python through slmarker (built like pylikwid).

usage: app.py NTHREADS. Prints LIKWID's answers (never times) in thread
order, so stdout is the same with and without the shim. Touches every item
of getregion's event list: a NULL item crashes here, as in pylikwid."""
import sys
import threading

import slmarker

CALLS = 10


def work(out, i):
    slmarker.threadinit()
    rcs = set()
    for _ in range(CALLS):
        rcs.add(("start", slmarker.start("py-work")))
        sum(k * 0.5 for k in range(20000))
        rcs.add(("stop", slmarker.stop("py-work")))
    nr, events, _time, count = slmarker.getregion("py-work")
    written = all(isinstance(e, float) and e >= 0 for e in events)
    out[i] = f"thread {i}: {sorted(rcs)} events {nr}/{len(events)} count {count} written {written}"


def main():
    n = int(sys.argv[1])
    slmarker.init()
    print("register", slmarker.register("py-work"))
    out = [None] * n
    if n == 1:
        work(out, 0)
    else:
        threads = [threading.Thread(target=work, args=(out, i)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for line in out:
        print(line)
    slmarker.close()


main()
