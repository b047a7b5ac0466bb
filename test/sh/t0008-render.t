#!/bin/sh
test_description='clustermap render: pictures of a matrix under a placement,
of the placement, and of the judge'"'"'s CSV

PNG, SVG and PDF chosen by the name of --output; a wrong name is a usage
error and a failure leaves no file; a malformed CSV is reported with its
file, line and column; 1000 ranks render in under 2 s.'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
# CLUSTERMAP_BUILD (as for the profiler and plugin tests) names the build
# directory when CLUSTERMAP is not set.
if test -z "${CLUSTERMAP:-}" && test -n "${CLUSTERMAP_BUILD:-}"
then CLUSTERMAP=$CLUSTERMAP_BUILD/clustermap
fi
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

M=$CM_MATRICES/cg.S.64.mtx
H="--hierarchy 4:2:4:2 --distances 1:2:10:20"
CSV=$CM_DATA/judge-sample.csv

# is_png FILE: PNG signature, then IHDR width and height above 0.
is_png() {
    test "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a &&
    od -An -tu1 -j16 -N8 "$1" | awk '{
        w = (($1 * 256 + $2) * 256 + $3) * 256 + $4
        h = (($5 * 256 + $6) * 256 + $7) * 256 + $8
        print w, h
        exit !(w > 0 && h > 0) }' >"$1.size"
}
png_width() { cut -d" " -f1 "$1.size"; }
is_svg() { head -c 300 "$1" | grep -q "<svg"; }
is_pdf() { test "$(head -c 5 "$1")" = "%PDF-"; }

# only_in DIR FILES...: DIR holds exactly FILES (temporaries included).
only_in() {
    dir=$1; shift
    : >expect.ls &&
    for f in "$@"; do echo "$f"; done | sort >expect.ls &&
    ls -A "$dir" | sort >actual.ls &&
    test_cmp expect.ls actual.ls
}

test_expect_success '--help lists the views, the options and the formats' '
    cm_run render --help >help &&
    for opt in --matrix --hierarchy --mapping --view --judge-csv --output \
               --seed --weight --verbose; do
        grep -e "^  *$opt\\b" -e "^  -[a-z], $opt\\b" help || return 1
    done &&
    grep "matrix|placement" help &&
    grep "FILE.png|FILE.svg|FILE.pdf" help &&
    cm_run --help | grep "^  render  *draw"
'

test_expect_success 'matrix view as PNG, block by default' '
    cm_run render --matrix $M $H --output cg.png &&
    is_png cg.png &&
    file cg.png | grep "PNG image data"
'

test_expect_success 'matrix view as SVG and PDF, scotch' '
    cm_run render --matrix $M $H --mapping scotch --output cg.svg &&
    is_svg cg.svg &&
    cm_run render --matrix $M $H --mapping scotch --output cg.pdf &&
    is_pdf cg.pdf &&
    file cg.pdf | grep "PDF document"
'

test_expect_success 'placement view in every format, and an upper-case name' '
    for f in place.png place.svg place.pdf place.PNG; do
        cm_run render --matrix $M $H --view placement --mapping cyclic \
            --output $f || return 1
    done &&
    is_png place.png && is_svg place.svg && is_pdf place.pdf && is_png place.PNG
'

test_expect_success 'a mapping file written by plan' '
    cm_run plan --matrix $M $H --algorithm scotch --output cg.map &&
    cm_run render --matrix $M $H --mapping cg.map --view placement \
        --output from-file.png &&
    is_png from-file.png
'

test_expect_success 'the judge CSV as PNG, SVG and PDF' '
    cm_run render --judge-csv "$CSV" --output judge.png &&
    is_png judge.png &&
    cm_run render --judge-csv "$CSV" --output judge.svg &&
    is_svg judge.svg &&
    cm_run render --judge-csv "$CSV" -o judge.pdf &&
    is_pdf judge.pdf
'

test_expect_success 'an unknown extension is a usage error naming --output, nothing written' '
    mkdir ext &&
    test_expect_code 2 "$CLUSTERMAP" render --matrix $M $H \
        --output ext/cg.jpg 2>err &&
    grep "^clustermap render: --output .ext/cg.jpg.: the name must end in .png, .svg or .pdf" err &&
    test_expect_code 2 "$CLUSTERMAP" render --judge-csv "$CSV" \
        --output ext/judge 2>err &&
    grep "^clustermap render: --output .ext/judge." err &&
    test_expect_code 2 "$CLUSTERMAP" render --matrix $M $H --output ext/.png 2>err &&
    only_in ext
'

test_expect_success 'usage errors: no --output, a bad --view, machine options with --judge-csv' '
    test_expect_code 2 "$CLUSTERMAP" render --matrix $M $H 2>err &&
    grep "^clustermap render: missing --output" err &&
    test_expect_code 2 "$CLUSTERMAP" render --matrix $M $H --view tree \
        --output x.png 2>err &&
    grep "^clustermap render: --view expects matrix or placement, got .tree." err &&
    test_expect_code 2 "$CLUSTERMAP" render --judge-csv "$CSV" $H \
        --output x.png 2>err &&
    grep "^clustermap render: --hierarchy is not used with --judge-csv" err &&
    test_expect_code 2 "$CLUSTERMAP" render --output x.png 2>err &&
    grep "^clustermap render: missing machine description" err &&
    ! test -e x.png
'

test_expect_success 'a bad CSV header names the file and the column; the old picture stays' '
    mkdir hdr &&
    cp judge.png hdr/judge.png &&
    sed "1s/,platform,/,plat,/" "$CSV" >hdr/bad.csv &&
    test_expect_code 1 "$CLUSTERMAP" render --judge-csv hdr/bad.csv \
        --output hdr/judge.png 2>err &&
    echo "clustermap render: hdr/bad.csv: line 1: column 3 is '"'"'plat'"'"', expected '"'"'platform'"'"'" >expect &&
    test_cmp expect err &&
    test_cmp judge.png hdr/judge.png &&
    only_in hdr bad.csv judge.png
'

test_expect_success 'a missing column and a bad value are named too' '
    mkdir rows &&
    sed "1s/,time_ratio_block$//" "$CSV" >rows/short.csv &&
    test_expect_code 1 "$CLUSTERMAP" render --judge-csv rows/short.csv \
        --output rows/x.png 2>err &&
    grep "^clustermap render: rows/short.csv: line 1: column 10 .time_ratio_block. missing" err &&
    sed "3s/,[^,]*$/,fast/" "$CSV" >rows/value.csv &&
    test_expect_code 1 "$CLUSTERMAP" render --judge-csv rows/value.csv \
        --output rows/x.png 2>err &&
    grep "^clustermap render: rows/value.csv: line 3: time_ratio_block: .fast. is not a non-negative number" err &&
    test_expect_code 1 "$CLUSTERMAP" render --judge-csv rows/none.csv \
        --output rows/x.png 2>err &&
    grep "^clustermap render: rows/none.csv: cannot open" err &&
    only_in rows short.csv value.csv
'

test_expect_success 'an unreadable matrix fails with nothing written' '
    mkdir bad &&
    test_expect_code 1 "$CLUSTERMAP" render --matrix bad/none.mtx $H \
        --output bad/x.png 2>err &&
    grep "^clustermap render: .*none.mtx" err &&
    only_in bad
'

# A ring of 1000 ranks (triplets, 0-based), and one of 4000 for the
# aggregated picture.
ring() {
    awk -v n="$1" "BEGIN { for (i = 0; i < n; i++) {
        print i, (i + 1) % n, 4096; print i, (i + n - 1) % n, 4096 } }"
}

test_expect_success '1000 ranks render in under 2 s, each view' '
    ring 1000 >ring1000.txt &&
    for view in matrix placement; do
        start=$(date +%s%N) &&
        cm_run render --matrix ring1000.txt --hierarchy 16:2:16:2 \
            --distances 1:2:10:20 --view $view --output ring-$view.png &&
        end=$(date +%s%N) &&
        ms=$(( (end - start) / 1000000 )) &&
        say "--view $view, 1000 ranks: $ms ms" &&
        test $ms -lt 2000 &&
        is_png ring-$view.png || return 1
    done
'

test_expect_success 'above 1024 ranks cells aggregate: the picture stays as wide' '
    ring 4000 >ring4000.txt &&
    cm_run render --matrix ring4000.txt --hierarchy 16:2:16:8 \
        --distances 1:2:10:20 --output ring4000.png &&
    is_png ring4000.png &&
    test "$(png_width ring4000.png)" -le "$(png_width ring-matrix.png)"
'

test_done
