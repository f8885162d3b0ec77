#!/bin/sh
# The report in a real browser: headless Chromium (Debian package chromium)
# takes a screenshot and dumps the DOM it built, without network. The
# screenshot must show the charts (png_check.py: colours of the regions as
# exact pixels, not blank), the DOM must hold the report's charts, rects
# and region titles (dom_check.py). SKIP (77) without Chromium.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_MK_RESCUE
pick_python
. "$(dirname "$0")/render_lib.sh"

# 8 regions with awkward tags, 2 threads, 5 calls each; nested calls
rescue aw.h5 --awkward 8 2 5
plot aw aw.h5 -o report.html
expect_rc 0 "plot" || finish
plot awsvg aw.h5 -o report.svg
expect_rc 0 "plot -o svg" || finish

shot report.html 1600 8 5
shot report.svg 1600 8 5
dom aw report.html
finish
