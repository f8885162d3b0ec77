#!/bin/sh
# The report in a real browser: headless Chromium (Debian package chromium)
# takes a screenshot and dumps the DOM it built, without network. The
# screenshot must show the charts (png_check.py: colours of the regions as
# exact pixels, not blank), the DOM must hold the report's charts, rects
# and region titles (dom_check.py). SKIP (77) without Chromium.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_MK_RESCUE
pick_python
CHROMIUM=${SL_CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "$CHROMIUM missing (Debian package chromium)"
HERE=$(cd "$(dirname "$0")" && pwd)

# browser NAME ARGS...: headless Chromium, own profile, nothing from the net
browser() {
    _n=$1
    shift
    mkdir -p "$T/profile-$_n"
    timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$T/profile-$_n" "$@" 2>"$T/$_n.err"
}

# 8 regions with awkward tags, 2 threads, 5 calls each; nested calls
rescue aw.h5 --awkward 8 2 5
plot aw aw.h5 -o report.html
expect_rc 0 "plot" || finish
plot awsvg aw.h5 -o report.svg
expect_rc 0 "plot -o svg" || finish

for r in report.html report.svg; do
    rm -f "$T/shot.png"
    browser "shot-$r" --screenshot="$T/shot.png" --window-size=1200,1600 "file://$T/$r" >/dev/null
    CHECKS=$((CHECKS + 1))
    if [ ! -s "$T/shot.png" ]; then
        fail "$r: no screenshot; chromium said: $(tail -3 "$T/shot-$r.err")"
        continue
    fi
    cp "$T/shot.png" "$T/shot-$r.png"
    CHECKS=$((CHECKS + 1))
    "$PY" "$HERE/png_check.py" "$T/shot.png" "$T/report.html" 8 5 >"$T/png.log" 2>&1 ||
        fail "$r: screenshot: $(cat "$T/png.log")"
done

browser dom --dump-dom "file://$T/report.html" >"$T/dom.html"
CHECKS=$((CHECKS + 1))
if [ ! -s "$T/dom.html" ]; then
    fail "no DOM dump; chromium said: $(tail -3 "$T/dom.err")"
else
    "$PY" "$HERE/dom_check.py" "$T/dom.html" "$T/report.html" >"$T/dom.log" 2>&1 ||
        fail "DOM: $(cat "$T/dom.log")"
fi
finish
