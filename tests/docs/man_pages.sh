#!/bin/sh
# The man pages are templates (docs/man/*.in) configured by docs/meson.build.
# Each template's @WORD@s must all be configured (meson only warns about an
# unknown one and writes it as nothing), each built page must have none left
# and name the shim at its installed path, so what `meson install` copies is
# what `man` shows. tests/install checks the installed copies too.
#   man_pages.sh SHIM_INSTALLED_PATH KEY,KEY,... TEMPLATE PAGE [TEMPLATE PAGE]...
set -u
shim=$1
keys=,$2,
shift 2
fail=0
n=0
while [ $# -ge 2 ]; do
    tpl=$1 page=$2
    shift 2
    n=$((n + 1))
    for w in $(grep -o '@[A-Za-z_]*@' "$tpl" | sort -u); do
        w=${w#@}
        w=${w%@}
        case $keys in
        *,"$w",*) ;;
        *) echo "FAIL: $tpl: @$w@ is not configured by docs/meson.build: expected one of ${keys#,}"; fail=1 ;;
        esac
    done
    if [ ! -s "$page" ]; then
        echo "FAIL: $page: missing or empty: expected the configured man page"; fail=1; continue
    fi
    if grep -n '@[A-Za-z_]*@' "$page"; then
        echo "FAIL: $page: placeholders left (above): expected every @WORD@ configured"; fail=1
    fi
    grep -q "$shim" "$page" || { echo "FAIL: $page does not name $shim"; fail=1; }
done
[ "$n" -gt 0 ] || { echo "FAIL: no page given"; exit 1; }
[ "$fail" = 0 ] && echo "ok: $n pages configured"
exit "$fail"
