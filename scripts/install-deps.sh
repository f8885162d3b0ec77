#!/bin/sh
# Installs every Debian 12 package the build, the tests and the examples need.
# Run as root. Nothing is downloaded from anywhere but Debian's archive.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential pkg-config meson ninja-build \
    likwid libhdf5-dev hdf5-tools libcriterion-dev \
    gfortran openmpi-bin libopenmpi-dev \
    clang libclang-rt-14-dev \
    python3 python3-h5py python3-numpy python3-pandas \
    chromium \
    valgrind time
