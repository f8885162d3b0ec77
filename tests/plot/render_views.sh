#!/bin/sh
# plot's views across ranks and files in headless Chromium (render_lib.sh):
# 4 ranks with a roofline, 20 ranks (the summary on the first screen, the
# ranks folded below it), two files compared (the files' colours on the
# screenshot too); each screenshot and DOM checked as in render.sh.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_MK_RESCUE
pick_python
. "$(dirname "$0")/render_lib.sh"

merge_ranks m4.h5 4 1000000 --roofline 4 2 3
plot m4 m4.h5 -o m4.html
expect_rc 0 "4 ranks" && shot m4.html 2000 8 4 && dom m4 m4.html
CHECKS=$((CHECKS + 1))
grep -q '<circle class="c' m4.html || fail "m4.html: no roofline point"
merge_ranks m20.h5 20 1000000 4 2 3
plot m20 m20.h5 -o m20.html
# the first screen: the summary (the ranks are folded below it)
expect_rc 0 "20 ranks" && shot m20.html 1400 8 4 && dom m20 m20.html
rescue base.h5 3 2 4
rescue new.h5 --scale 1.5 3 2 4
plot cmp base.h5 new.h5 -o cmp.html
expect_rc 0 "two files" && shot cmp.html 1200 8 3 2 && dom cmp cmp.html
finish
