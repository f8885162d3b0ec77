#!/bin/sh
# Installs the Debian 12 packages the project needs. Run as root. Nothing is
# downloaded from anywhere but Debian's archive.
#   sh scripts/install-deps.sh        the build, the example and the README's
#                                     test command (scripts/quickstart.sh)
#   sh scripts/install-deps.sh --all  also what only CI uses (.ci/run): the
#                                     optional tests' packages and clang
# Without them the optional tests skip (exit 77, one line naming the
# package): tests/plot/render.sh needs chromium (about 100 MB), the export
# cross-check (tests/export/export_crosscheck.sh) python3-pandas, the Slurm
# suite (tests/slurm/slurm.sh: its own cluster on loopback) slurm-wlm and
# munge (their services are not configured: the test starts its own
# daemons); clang and libclang-rt build the libFuzzer targets
# (scripts/fuzz.sh), not a test.
set -eu
extra=
case ${1:-} in
'') ;;
--all) extra='python3-pandas chromium clang libclang-rt-14-dev slurm-wlm munge' ;;
*) echo "install-deps.sh: unknown argument '$1': expected nothing or --all" >&2; exit 2 ;;
esac
export DEBIAN_FRONTEND=noninteractive
apt-get update
# valgrind: the valgrind suite of the README's test command; python3-dev:
# the pylikwid-like extension of tests/rtldlocal; lmod and man-db: the
# install-prefix test loads our modulefile and reads our man page.
# $extra unquoted on purpose: a list of package names.
apt-get install -y --no-install-recommends \
    build-essential pkg-config meson ninja-build \
    likwid libhdf5-dev hdf5-tools libcriterion-dev \
    gfortran openmpi-bin libopenmpi-dev \
    python3 python3-dev python3-h5py python3-numpy \
    valgrind time lmod man-db $extra
# Environment Modules conflicts with lmod as a package: the install-prefix
# test runs its modulecmd.tcl from the Debian package unpacked here.
envmod=/opt/scope-likwid-test/environment-modules
if [ ! -f "$envmod/usr/lib/x86_64-linux-gnu/modulecmd.tcl" ]; then
    dl=$(mktemp -d)
    (cd "$dl" && apt-get download environment-modules 2>/dev/null)
    mkdir -p "$envmod"
    dpkg-deb -x "$dl"/environment-modules_*.deb "$envmod"
    rm -rf "$dl"
fi
