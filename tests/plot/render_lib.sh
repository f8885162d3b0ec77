# Sourced by the render tests after lib.sh: headless Chromium (own
# profile, nothing from the network), a screenshot checked by png_check.py,
# the DOM it built checked by dom_check.py. SKIP (77) without Chromium.
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

# dom NAME REPORT: Chromium's DOM of REPORT against REPORT
dom() {
    browser "dom-$1" --dump-dom "file://$T/$2" >"$T/dom-$1.html"
    CHECKS=$((CHECKS + 1))
    if [ ! -s "$T/dom-$1.html" ]; then
        fail "$2: no DOM dump; chromium said: $(tail -3 "$T/dom-$1.err")"
    else
        "$PY" "$HERE/dom_check.py" "$T/dom-$1.html" "$T/$2" >"$T/dom-$1.log" 2>&1 ||
            fail "$2: DOM: $(cat "$T/dom-$1.log")"
    fi
}
# shot REPORT HEIGHT png_check-ARGS...: the first HEIGHT px of REPORT
shot() {
    _r=$1 _h=$2
    shift 2
    rm -f "$T/shot.png"
    browser "shot-$_r" --screenshot="$T/shot.png" --window-size=1200,"$_h" "file://$T/$_r" >/dev/null
    CHECKS=$((CHECKS + 1))
    if [ ! -s "$T/shot.png" ]; then
        fail "$_r: no screenshot; chromium said: $(tail -3 "$T/shot-$_r.err")"
        return
    fi
    cp "$T/shot.png" "$T/shot-$_r.png"
    CHECKS=$((CHECKS + 1))
    "$PY" "$HERE/png_check.py" "$T/shot.png" "$T/$_r" "$@" >"$T/png.log" 2>&1 ||
        fail "$_r: screenshot: $(cat "$T/png.log")"
}
