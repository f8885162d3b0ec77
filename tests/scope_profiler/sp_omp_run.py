#!/usr/bin/env python3
"""One process under both tools: run with the shim preloaded, it writes a
scope-profiler file (OUT_DIR/profiling_data.h5, through the fixture writer
of tests/data/scope_profiler) whose omp_num_threads follows scope-profiler
0.2.1's rule (metadata.py at f570cbc: omp_get_max_threads() of the first
OpenMP runtime ctypes can load, else the first value of OMP_NUM_THREADS,
else 1), and drives the marker API the shim interposes, so the shim writes
its own result file at likwid_markerClose.

Usage: sp_omp_run.py FIXTURE_DIR OUT_DIR
"""
import ctypes
import os
import sys

sys.path.insert(0, sys.argv[1])
import make_fixture  # noqa: E402


def scope_profiler_omp_threads():
    """scope-profiler 0.2.1's rule, as its metadata.py states it."""
    for lib in ("libomp.so", "libgomp.so.1", "libiomp5.so"):
        try:
            return int(ctypes.CDLL(lib).omp_get_max_threads())
        except (OSError, AttributeError):
            continue
    env = os.environ.get("OMP_NUM_THREADS")
    if env:
        try:
            return int(env.split(",")[0].strip())
        except ValueError:
            pass
    return 1


# scope-profiler collects its metadata at setup, before any region runs
omp = scope_profiler_omp_threads()
shim = ctypes.CDLL(None)  # the preloaded shim's marker API
shim.likwid_markerInit()
shim.likwid_markerStartRegion(b"step")
shim.likwid_markerStopRegion(b"step")
shim.likwid_markerClose()
make_fixture.write_profiling_file(os.path.join(sys.argv[2], "profiling_data.h5"),
                                  [{"step": [(0, 1000)]}], make_fixture.metadata(omp, 1))
print(omp)
