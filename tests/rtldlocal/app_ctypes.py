"""Marker calls from Python through ctypes, LIKWID loaded RTLD_LOCAL.

usage: app_ctypes.py direct|global
direct: the functions are taken from LIKWID's own handle, so calls go
straight to LIKWID (the shim cannot see them); global: from CDLL(None), the
global scope, where a preloaded shim has them (without the shim the global
scope has no LIKWID). Prints LIKWID's answers, never times."""
import ctypes
import sys

likwid = ctypes.CDLL("liblikwid.so.5.2")  # ctypes' default: RTLD_LOCAL
api = likwid if sys.argv[1] == "direct" else ctypes.CDLL(None)
for name in ("likwid_markerRegisterRegion", "likwid_markerStartRegion", "likwid_markerStopRegion"):
    getattr(api, name).argtypes = [ctypes.c_char_p]
    getattr(api, name).restype = ctypes.c_int

api.likwid_markerInit()
print("register", api.likwid_markerRegisterRegion(b"ct-work"))
rcs = set()
for _ in range(10):
    rcs.add(("start", api.likwid_markerStartRegion(b"ct-work")))
    sum(k * 0.5 for k in range(20000))
    rcs.add(("stop", api.likwid_markerStopRegion(b"ct-work")))
nr = ctypes.c_int(16)
events = (ctypes.c_double * 16)()
time = ctypes.c_double(-1)
count = ctypes.c_int(-1)
api.likwid_markerGetRegion(b"ct-work", ctypes.byref(nr), events, ctypes.byref(time), ctypes.byref(count))
print("thread 0:", sorted(rcs), "events", nr.value, "count", count.value)
api.likwid_markerClose()
