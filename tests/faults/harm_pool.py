"""A multiprocessing pool forked after likwid_markerInit, markers through
ctypes (harm.sh pool): the parent times "main" twice around a pool of 2
workers (fork) that time "task" once per task, 40 tasks; prints the sum of
the tasks' results, the same with and without the shim."""
import ctypes
import multiprocessing as mp

for name in ("liblikwid.so.5.2", "liblikwid.so"):
    try:
        ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        break
    except OSError:
        pass
lk = ctypes.CDLL(None)  # the global scope: the preloaded shim's functions first
lk.likwid_markerStartRegion.argtypes = [ctypes.c_char_p]
lk.likwid_markerStopRegion.argtypes = [ctypes.c_char_p]


def work(tag):
    lk.likwid_markerStartRegion(tag)
    s = sum(range(20000))
    lk.likwid_markerStopRegion(tag)
    return s


def task(i):
    work(b"task")
    return i


if __name__ == "__main__":
    lk.likwid_markerInit()
    work(b"main")
    with mp.get_context("fork").Pool(2) as p:
        print("pool:", sum(p.map(task, range(40), chunksize=1)))
    work(b"main")
    lk.likwid_markerClose()
    print("done")
