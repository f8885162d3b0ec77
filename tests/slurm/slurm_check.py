#!/usr/bin/python3
"""Checks of the Slurm cases' result files, with h5py (not our reader).

  slurm_check.py merged FILE JOB STEP NRANKS CALLS USER
      FILE is one launch (srun step STEP of job JOB) merged: rank0 ..
      rank<NRANKS-1>, each with CALLS recorded calls over all its regions,
      /metadata run_id slurm-JOB.STEP, SLURM_JOB_ID JOB, mpi_size NRANKS,
      user USER, and more than 32 attributes (Slurm's variables).
  slurm_check.py serial FILE JOB CALLS
      FILE is one serial run of job JOB's batch script: one rank group
      (mpi_rank -1), CALLS calls, run_id slurm-JOB/HOST:PID:START, mpi_size 1.
  slurm_check.py killed FILE COUNTFILE STATUS JOB USER
      FILE is the result of a loop_app rank ended from outside: region
      "step" holds every call loop_app counted as completed (COUNTFILE: an
      int64 counter; the result may hold one more: a call completed and not
      yet counted), likwid_status contains STATUS, and
      /metadata carries the job's variables noted at Init (SLURM_JOB_ID
      JOB, SLURM_STEP_ID 0, user USER, mpi_size 2, working_directory).
Exit 0, or 1 with one line per problem."""
import os
import struct
import sys

import h5py


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def ranks(f):
    return sorted((k for k in f if k.startswith("rank")), key=lambda k: int(k[4:]))


def calls(g, tag=None):
    n = 0
    for r in g["timing/regions"].values():
        if tag is None or text(r.attrs["tag"]) == tag:
            n += int(r["call_counts"][:].sum())
    return n


def main(argv):
    bad = []
    kind, path = argv[1], argv[2]
    f = h5py.File(path, "r")
    m = f["metadata"].attrs
    if kind == "merged":
        job, step, n, want, user = argv[3], argv[4], int(argv[5]), int(argv[6]), argv[7]
        if ranks(f) != ["rank%d" % r for r in range(n)]:
            bad.append("rank groups %s: expected rank0..rank%d" % (ranks(f), n - 1))
        for k in ranks(f):
            if calls(f[k]) != want:
                bad.append("%s: %d calls, expected %d" % (k, calls(f[k]), want))
        expect = {"run_id": "slurm-%s.%s" % (job, step), "SLURM_JOB_ID": job, "mpi_size": n,
                  "user": user}
        for key, v in expect.items():
            if text(m.get(key)) != v:
                bad.append("/metadata %s = %r, expected %r" % (key, m.get(key), v))
        if len(m) <= 32:
            bad.append("/metadata has %d attributes: expected Slurm's variables (over 32)" % len(m))
    elif kind == "serial":
        job, want = argv[3], int(argv[4])
        if len(ranks(f)) != 1 or f[ranks(f)[0]].attrs["mpi_rank"] != -1:
            bad.append("rank groups %s: expected one serial run (mpi_rank -1)" % ranks(f))
        elif calls(f[ranks(f)[0]]) != want:
            bad.append("%d calls, expected %d" % (calls(f[ranks(f)[0]]), want))
        if not text(m.get("run_id", "")).startswith("slurm-%s/" % job):
            bad.append("run_id %r: expected slurm-%s/HOST:PID:START" % (m.get("run_id"), job))
        if m.get("mpi_size") != 1:
            bad.append("mpi_size %r: expected 1" % m.get("mpi_size"))
    elif kind == "killed":
        countfile, status, job, user = argv[3], argv[4], argv[5], argv[6]
        counted = struct.unpack("<q", open(countfile, "rb").read(8))[0]
        g = f[ranks(f)[0]]
        got = calls(g, "step")
        if not counted <= got <= counted + 1:
            bad.append("%d calls of step: expected the %d loop_app completed (or one more)"
                       % (got, counted))
        if calls(g, "side") < 1:
            bad.append("no call of side: expected the second thread's calls")
        if counted < 10:
            bad.append("loop_app counted only %d calls: expected it to have run" % counted)
        st = text(g.attrs["likwid_status"])
        if status not in st:
            bad.append("likwid_status %r: expected it to contain %r" % (st, status))
        expect = {"SLURM_JOB_ID": job, "SLURM_STEP_ID": "0", "user": user, "mpi_size": 2}
        for key, v in expect.items():
            if text(m.get(key)) != v:
                bad.append("/metadata %s = %r, expected %r" % (key, m.get(key), v))
        if not os.path.isdir(text(m.get("working_directory", ""))):
            bad.append("/metadata working_directory %r" % m.get("working_directory"))
    else:
        bad.append("unknown check %s" % kind)
    for b in bad:
        print("%s: %s" % (path, b))
    return 1 if bad else 0


sys.exit(main(sys.argv))
