#!/bin/sh
# Every kind of defective marker file, through convert --strict and the
# default (salvage) mode: the message names file and line and says what was
# expected; exit codes; no output (and no temporary file) left on failure.
. "$(dirname "$0")/lib.sh"

HEAD='2 2 1\n0:init-0\n1:solve-0\n'
V0='0 0 0 1 1.000000e-01 2 1.000000e+00 2.000000e+00 \n'
V1='0 0 1 1 1.000000e-01 2 3.000000e+00 4.000000e+00 \n'
V2='1 0 0 5 5.000000e-01 2 5.000000e+00 6.000000e+00 \n'

# bad_case NAME LINE FATAL: $TMP/NAME/in.txt is already written (or absent).
# LINE: where the message points ("" for messages without a line).
# FATAL: 1 when salvage mode must fail too.
bad_case() {
    _case=$1 _line=$2 _fatal=$3
    _dir=$TMP/$_case
    _where="in.txt:"
    if [ -n "$_line" ]; then _where="in.txt:$_line:"; fi
    _before=$(cd "$_dir" && ls -A | tr '\n' ' ' | sed 's/ $//')

    for _mode in strict salvage; do
        _opt=--strict
        if [ $_mode = salvage ]; then _opt=; fi
        rm -f "$_dir/out.h5"
        RC=0
        (cd "$_dir" && "$SL" convert in.txt -o out.h5 $_opt) >"$_dir/../$_case.$_mode.out" \
            2>"$_dir/../$_case.$_mode.err" || RC=$?
        _err=$_dir/../$_case.$_mode.err
        CHECKS=$((CHECKS + 1))
        if ! grep -F "$_where" "$_err" | grep -q "expected"; then
            fail "$_case ($_mode): no message naming '$_where' with 'expected': $(head -c 400 "$_err")"
        fi
        if [ $_mode = strict ] || [ "$_fatal" = 1 ]; then
            CHECKS=$((CHECKS + 1))
            [ "$RC" -eq 1 ] || fail "$_case ($_mode): exit code $RC, expected 1"
            check_files "$_dir" "$_before" "$_case ($_mode): nothing written"
            CHECKS=$((CHECKS + 1))
            if grep -q '^wrote' "$_dir/../$_case.$_mode.out"; then fail "$_case ($_mode): says it wrote"; fi
        else
            CHECKS=$((CHECKS + 1))
            [ "$RC" -eq 0 ] || fail "$_case ($_mode): exit code $RC, expected 0 (salvaged)"
            check_files "$_dir" "$(printf '%s\n' $_before out.h5 | sort | tr '\n' ' ' | sed 's/ $//')" \
                "$_case ($_mode): only out.h5 written"
            check_grep "$_dir/../$_case.$_mode.out" "wrote out.h5" "$_case ($_mode)"
            # the file is readable and says lines were skipped
            RC=0
            (cd "$_dir" && "$SL" show out.h5 --csv) >"$_dir/../$_case.show" 2>&1 || RC=$?
            CHECKS=$((CHECKS + 1))
            [ "$RC" -eq 0 ] || fail "$_case ($_mode): show of the salvaged file failed"
            check_grep "$_dir/../$_case.show" "defect" "$_case ($_mode): status counts the defects"
        fi
    done
}

mk() {
    mkdir -p "$TMP/$1"
    # shellcheck disable=SC2059
    printf "$2" >"$TMP/$1/in.txt"
}

mkdir -p "$TMP/missing"
bad_case missing "" 1

mk empty ''
bad_case empty "" 1
mk blank_only '\n  \n\n'
bad_case blank_only "" 1

mk bad_header "2 x 1\n0:init-0\n$V0"
bad_case bad_header 1 1
mk not_marker '{"json": true}\n'
bad_case not_marker 1 1
mk header_only_two '2 2\n'
bad_case header_only_two 1 1

# header says 3 regions, the file has 2 region lines and then values
mk few_regions "2 3 1\n0:init-0\n1:solve-0\n$V0$V1$V2"
bad_case few_regions 4 0
# header says 3 regions, the file ends after 2 region lines
mk few_regions_eof '2 3 1\n0:init-0\n1:solve-0\n'
bad_case few_regions_eof 4 0

mk region_no_dash "2 2 1\n0:init\n1:solve-0\n$V0$V1$V2"
bad_case region_no_dash 2 0
mk region_no_colon "2 2 1\n0:init-0\nsolve-0\n$V0$V1$V2"
bad_case region_no_colon 3 0

mk unknown_region "$HEAD$V0$V1${V2}7 0 0 1 1.000000e-01 2 1.000000e+00 2.000000e+00 \n"
bad_case unknown_region 7 0

mk short_line "${HEAD}0 0 0 1 1.000000e-01 2 1.000000e+00 \n$V1$V2"
bad_case short_line 4 0
mk short_fields "${HEAD}0 0 0 1\n$V1$V2"
bad_case short_fields 4 0

mk nonnum_count "$HEAD$V0${V1}1 0 0 five 5.000000e-01 2 5.000000e+00 6.000000e+00 \n"
bad_case nonnum_count 6 0
mk nonnum_value "$HEAD$V0${V1}1 0 0 5 5.000000e-01 2 5.000000e+00 six \n"
bad_case nonnum_value 6 0
mk nonnum_time "$HEAD${V0}0 0 1 1 0.1s 2 3.000000e+00 4.000000e+00 \n$V2"
bad_case nonnum_time 5 0
mk nonnum_cpu "$HEAD${V0}0 0 one 1 1.000000e-01 2 3.000000e+00 4.000000e+00 \n$V2"
bad_case nonnum_cpu 5 0

mk negative_count "$HEAD${V0}0 0 1 -1 1.000000e-01 2 3.000000e+00 4.000000e+00 \n$V2"
bad_case negative_count 5 0
mk huge_count "$HEAD${V0}0 0 1 9223372036854775808 1.000000e-01 2 3.000000e+00 4.000000e+00 \n$V2"
bad_case huge_count 5 0

mk nul_byte "$HEAD$V0${V1}1 0 0 5 5.0\\000e-01 2 5.000000e+00 6.000000e+00 \n"
bad_case nul_byte 6 0
mk nul_in_header "2 2\\000 1\n0:init-0\n1:solve-0\n$V0"
bad_case nul_in_header 1 1

mk cut_off "$HEAD$V0${V1}1 0 0 5 5.000000e-01 2 5.000000e+00 6.0000"
bad_case cut_off 6 0

# a scope-likwid rescue file cut off: refused in both modes
mk cut_rescue 'scope-likwid-wire 1\nkind run\nrank 0\nmpi_r'
bad_case cut_rescue 4 1

finish
