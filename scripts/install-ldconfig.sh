#!/bin/sh
# Run by `meson install` (meson.build, add_install_script) after installing
# to the real root: refreshes the dynamic linker's cache so that a bare
# LD_PRELOAD=libscope_likwid.so finds the installed shim, as the README says.
# Not run with --destdir (skip_if_destdir): a staged tree is not this
# system's. Never fails the install; when the bare name cannot work it says
# exactly why and what works instead, in one line on stderr.
#   install-ldconfig.sh LIBDIR
set -u
libdir=${1:?usage: install-ldconfig.sh LIBDIR}
[ -z "${DESTDIR:-}" ] || exit 0
[ -z "${MESON_INSTALL_DRY_RUN:-}" ] || exit 0
# meson install (Debian 12's 1.0) runs this script with its stdout and
# stderr in pipes it never prints; the line goes to meson's own stderr
# (the parent's descriptor 2) when that is not where ours already goes.
say() {
    if [ -w "/proc/$PPID/fd/2" ] &&
        [ "$(stat -L -c %d:%i "/proc/$PPID/fd/2" 2>/dev/null)" != "$(stat -L -c %d:%i /proc/self/fd/2 2>/dev/null)" ]; then
        echo "scope-likwid: $*" >>"/proc/$PPID/fd/2" && return
    fi
    echo "scope-likwid: $*" >&2
}
full="LD_PRELOAD=$libdir/libscope_likwid.so"
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
if [ "$(id -u)" != 0 ]; then
    say "not root, ldconfig not run: the bare LD_PRELOAD=libscope_likwid.so needs it (as root: ldconfig); $full works now"
    exit 0
fi
if ! "$ldconfig"; then
    say "ldconfig failed: the bare LD_PRELOAD=libscope_likwid.so may not work; $full does"
    exit 0
fi
if ! "$ldconfig" -p | grep -q "libscope_likwid\.so .*=> $libdir/libscope_likwid\.so\$"; then
    say "$libdir is not in the dynamic linker's search path (/etc/ld.so.conf.d): use $full, or add $libdir there and run ldconfig"
fi
exit 0
