#!/bin/sh
# The README's quickstart: install what the build and the README's test
# command need (Debian 12, as root; not the optional tests' packages),
# build, and run the bundled example application under the shim.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
sh examples/run-example.sh build
