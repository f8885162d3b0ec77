#!/usr/bin/env python3
"""Writes files the way scope-profiler 0.2.1 writes its profiling_data.h5
(../shared/spec/scope-profiler-layout.md; 0.2.1's region_profiler.py,
profile_manager.py and metadata.py read at snapshot f570cbc), with fixed
numbers so the files are reproducible:

- each rank writes its own file: every region is regions/<name> (the name
  verbatim) with start_times and end_times created empty, chunked and
  resizable (int64, maxshape None), then grown by one resize-and-write per
  flush of the region's buffer;
- rank 0 writes the merged file: /metadata (attrs only: strings as h5py
  writes str, ints as int64; timestamp is a local datetime.now().isoformat(),
  without a zone), then each rank's whole file copied as rank<r>.

No root attributes, no likwid group: 0.2.1 writes none.

Usage: make_fixture.py OUT_DIR [--slower]
writes OUT_DIR/sp021_two_ranks.h5 (2 ranks, the file kept in tests/data), or
with --slower OUT_DIR/sp021_slower.h5 (the same run, every solve-step call
25 % longer: the second file of a diff).
The module's write_profiling_file() is also used by tests that simulate a
scope-profiler run (tests/scope_profiler/sp_omp_run.py).
"""
import os
import sys
import tempfile

import h5py
import numpy as np

# a perf_counter_ns()-like origin (CLOCK_MONOTONIC, ns)
T0 = 81_234_567_000_000

# region name -> list of (start, end) offsets in ns from T0, per rank; names
# as a user would give them (scope-profiler keeps them verbatim)
def calls(rank, slow=1.0):
    base = rank * 1_000
    out = {"init": [(base, base + 400_000)]}
    steps = []
    t = 500_000 + base
    for i in range(5):
        d = int((2_000_000 + 10_000 * i) * slow)
        steps.append((t, t + d))
        t += d + 50_000
    out["solve-step"] = steps
    out["residual"] = [(s + 100_000, s + 300_000) for s, _ in steps]
    out["50%"] = [(t, t + 700_000)]
    out[".hidden"] = [(t + 800_000, t + 900_000), (t + 950_000, t + 990_000)]
    out["io phase"] = [(t + 1_000_000, t + 4_000_000 + rank * 100_000)]
    return out


def write_rank_file(path, regions, buffer_limit=3):
    """One rank's file, region by region, flushed every buffer_limit calls."""
    for name, pairs in regions.items():
        starts = np.array([T0 + s for s, _ in pairs], dtype=np.int64)
        ends = np.array([T0 + e for _, e in pairs], dtype=np.int64)
        with h5py.File(path, "a") as f:
            grp = f.require_group("regions/" + name)
            for ds in ("start_times", "end_times"):
                if ds not in grp:
                    grp.create_dataset(ds, shape=(0,), maxshape=(None,), dtype="i8", chunks=True)
        for at in range(0, len(pairs), buffer_limit):
            with h5py.File(path, "a") as f:
                grp = f["regions/" + name]
                for ds, data in (("start_times", starts), ("end_times", ends)):
                    chunk = data[at:at + buffer_limit]
                    d = grp[ds]
                    old = d.shape[0]
                    d.resize((old + len(chunk),))
                    d[old:old + len(chunk)] = chunk


def metadata(omp_num_threads=2, mpi_size=2):
    return {
        "timestamp": "2026-07-23T14:05:09.123456",
        "hostname": "node17",
        "platform": "Linux-6.1.0-30-amd64-x86_64-with-glibc2.36",
        "python_version": "3.11.2",
        "scope_profiler_version": "0.2.1",
        "working_directory": "/home/user/run",
        "omp_num_threads": omp_num_threads,
        "mpi_size": mpi_size,
        "total_cores": mpi_size * omp_num_threads,
        "user": "user",
    }


def write_profiling_file(path, per_rank, meta):
    """The merged file: /metadata, then every rank file copied as rank<r>."""
    with tempfile.TemporaryDirectory() as tmp:
        rank_files = []
        for r, regions in enumerate(per_rank):
            rf = os.path.join(tmp, "rank%d.h5" % r)
            write_rank_file(rf, regions)
            rank_files.append(rf)
        with h5py.File(path, "w") as fout:
            grp = fout.create_group("metadata")
            for k, v in meta.items():
                grp.attrs[k] = v
            for r, rf in enumerate(rank_files):
                with h5py.File(rf, "r") as fin:
                    fout.copy(fin, "rank%d" % r)


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--slower"]):
        sys.exit(__doc__)
    out = sys.argv[1]
    if sys.argv[2:]:
        write_profiling_file(os.path.join(out, "sp021_slower.h5"),
                             [calls(0, 1.25), calls(1, 1.25)], metadata())
    else:
        write_profiling_file(os.path.join(out, "sp021_two_ranks.h5"), [calls(0), calls(1)],
                             metadata())


if __name__ == "__main__":
    main()
