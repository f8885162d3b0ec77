#!/bin/sh
# plot on files made for it: the h5 suite's fixture (two ranks, every
# awkward tag, a host name that is not UTF-8, negative values, a 10 kB tag),
# tags HTML must escape, a file without counters, a marker file's (no
# timing), and the cap on drawn calls.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_CHECKER SL_MK_RESCUE SL_SAMPLE_WRITER SL_SAMPLES
pick_python

"$SL_SAMPLE_WRITER" fx.h5 >/dev/null || fail "h5_sample_writer"
plot fx fx.h5
expect_rc 0 "fixture" && check fx.html fx.h5
plot fxsvg fx.h5 -o fx.svg
expect_rc 0 "fixture svg" && check fx.svg fx.h5 --svg
grep_in fx.html 'node\xFF01' "non-UTF-8 host name shown as \\xHH"
grep_in fx.html 'tab\x09here' "control byte in a tag shown as \\xHH"

# a merged file: every rank's title names the input and group it came from
cp fx.h5 fxcopy.h5
"$SL_CLI" merge -o fxm.h5 fx.h5 fxcopy.h5 >/dev/null 2>&1 || fail "merge fx.h5 fxcopy.h5"
plot fxm fxm.h5
expect_rc 0 "merged fixture" && check fxm.html fxm.h5
grep_in fxm.html ', from fxcopy.h5:rank3)' "merged: the copy's origin in its title"
plot fxmsvg fxm.h5 -o fxm.svg
expect_rc 0 "merged fixture svg" && check fxm.svg fxm.h5 --svg

rescue aw.h5 --awkward 10 2 3
plot aw aw.h5
expect_rc 0 "awkward tags" && check aw.html aw.h5
grep_in aw.html '&lt;script&gt;alert(1)&lt;/script&gt;' "a tag that looks like a script, escaped"
grep_in aw.html '&lt;b&gt;used&lt;/b&gt; full_api &amp; &quot;more&quot; \xFE' "likwid_status escaped"
grep_in aw.html 'non-char \xEF\xBF\xBE' "U+FFFE (not allowed in XML) as \\xHH"
plot awsvg aw.h5 -o aw.svg
expect_rc 0 "awkward tags svg" && check aw.svg aw.h5 --svg

rescue nl.h5 --no-likwid 3 2 3
plot nl nl.h5
expect_rc 0 "no counters" && check nl.html nl.h5
grep_in nl.html "No counter data in this rank" "no-counter note"
plot nlm nl.h5 -o nlm.html --metric "call count"
expect_rc 1 "no counters, --metric 'call count' (as show)" &&
    grep_in nlm.err "no counter data (timing only)" "message"

"$SL_CLI" convert "$SL_SAMPLES/v52_two_groups.txt" -o mf.h5 >/dev/null 2>&1 || fail "convert v52_two_groups.txt"
plot mf mf.h5
expect_rc 0 "marker file (no timing)" && check mf.html mf.h5
grep_in mf.html "No timed regions." "no-timing note"
grep_in mf.html "No per-call samples" "no-samples note"

# the cap: 3 regions x 4 threads x 2500 calls = 30000 calls, 20000 drawn
rescue cap.h5 3 4 2500 2 1
plot cap cap.h5
expect_rc 0 "30000 calls" && check cap.html cap.h5 --cap 20000
grep_in cap.html "Drew 20000 of 30000 recorded calls; 10000 shorter ones left out" "cap note"
plot cap7 cap.h5 --max-calls 7 -o cap7.svg
expect_rc 0 "--max-calls 7" && check cap7.svg cap.h5 --svg --cap 7
plot cap0 cap.h5 --max-calls 0 -o cap0.html
expect_rc 0 "--max-calls 0" && check cap0.html cap.h5 --cap 0
finish
