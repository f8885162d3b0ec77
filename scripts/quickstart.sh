#!/bin/sh
# The README's first command: install what is needed (Debian 12, as root),
# build, and run the bundled example application under the shim.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
sh examples/run-example.sh build
