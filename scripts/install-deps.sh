#!/bin/sh
# Installs the Debian 12 packages the project needs. Run as root. Nothing is
# downloaded from anywhere but Debian's archive.
#   sh scripts/install-deps.sh        the build, the example and the README's
#                                     test command (scripts/quickstart.sh)
#   sh scripts/install-deps.sh --all  also what only CI uses (.ci/run): the
#                                     optional tests' packages and clang
# Without them the optional tests skip (exit 77, one line naming the
# package): tests/plot/render.sh needs chromium (about 100 MB), the export
# cross-check (tests/export/export_crosscheck.sh) python3-pandas; clang and
# libclang-rt build the libFuzzer targets (scripts/fuzz.sh), not a test.
set -eu
extra=
case ${1:-} in
'') ;;
--all) extra='python3-pandas chromium clang libclang-rt-14-dev' ;;
*) echo "install-deps.sh: unknown argument '$1': expected nothing or --all" >&2; exit 2 ;;
esac
export DEBIAN_FRONTEND=noninteractive
apt-get update
# valgrind: the valgrind suite of the README's test command; python3-dev:
# the pylikwid-like extension of tests/rtldlocal.
# $extra unquoted on purpose: a list of package names.
apt-get install -y --no-install-recommends \
    build-essential pkg-config meson ninja-build \
    likwid libhdf5-dev hdf5-tools libcriterion-dev \
    gfortran openmpi-bin libopenmpi-dev \
    python3 python3-dev python3-h5py python3-numpy \
    valgrind time $extra
