#!/bin/sh
test_description='a profile captured from a real MPI run round-trips through
the store: import of the raw file, export as JSON, re-import, show as Matrix
Market and as a summary -- all unchanged'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"
. "$SHARNESS_TEST_DIRECTORY/lib/prof.sh"

CLUSTERMAP_STORE=$PWD/store
export CLUSTERMAP_STORE

# raw_as_mtx RAW: the raw profile's p2p + coll bytes summed per pair, as
# sorted "i j bytes" lines with 1-based indices (what show --format mtx
# prints for the whole profile).
raw_as_mtx() {
    awk '$1 == "p2p" || $1 == "coll" { b[$2 + 1 " " $3 + 1] += $4 }
         END { for (k in b) if (b[k] > 0) printf "%s %.17g\n", k, b[k] }' "$1"/part.*.txt | sort
}

sorted_mtx() {
    grep -v '^%' "$1" | tail -n +2 | awk '{ printf "%d %d %.17g\n", $1, $2, $3 }' | sort
}

test_expect_success 'capture halo2d (persistent requests, 6 ranks) and colls (4 ranks)' '
    prof_cc halo2d && prof_cc colls &&
    mkdir halo.d colls.d &&
    prof_run 6 "$PWD/halo.d" ./halo2d "$PWD/halo.exp" >/dev/null &&
    prof_run 4 "$PWD/colls.d" ./colls "$PWD/colls.exp" >/dev/null &&
    test $(ls halo.d | wc -l) = 6 && test $(ls colls.d | wc -l) = 4
'

test_expect_success 'every part has its time line: 0 < elapsed, MPI time <= elapsed' '
    for f in halo.d/part.*.txt colls.d/part.*.txt; do
        sed -n 6p "$f" >time.line &&
        grep -Ex "time [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6}" time.line &&
        awk "\$2 > 0 && \$3 <= \$2 + 0.000002 { ok = 1 } END { exit !ok }" time.line ||
        return 1
    done
'

for case in halo:6 colls:4; do
    name=${case%:*} np=${case#*:}
    test_expect_success "$name: raw -> store -> JSON -> store -> mtx is unchanged" "
        raw=$name.d &&
        cm_run profile import \"\$raw\" --job-name $name >out &&
        grep \"with $np tasks\" out &&
        cm_run profile export $name --ntasks $np --output $name.json &&
        cm_run profile import $name.json --job-name $name-copy &&
        cm_run profile show $name-copy --ntasks $np --format mtx --output $name.mtx &&
        raw_as_mtx \"\$raw\" >expect &&
        sorted_mtx $name.mtx >actual &&
        test_cmp expect actual
    "
    test_expect_success "$name: the summary of the copy equals the original's" "
        cm_run profile show $name --ntasks $np >a.show &&
        cm_run profile show $name-copy --ntasks $np >b.show &&
        grep -v -e ^job_name= -e _update= -e ^program= a.show >a &&
        grep -v -e ^job_name= -e _update= -e ^program= b.show >b &&
        test_cmp a b &&
        grep \"^ntasks=$np\$\" a && grep \"^runs=1\$\" a
    "
done

test_expect_success 'show --format triplets keeps bytes and messages; eval reads it' '
    raw=halo.d &&
    cm_run profile show halo --ntasks 6 --format triplets --output halo.trip &&
    grep -x "# ranks 6" halo.trip &&
    awk "\$1 == \"p2p\" || \$1 == \"coll\" { b[\$2 \" \" \$3] += \$4; m[\$2 \" \" \$3] += \$5 }
         END { for (k in b) printf \"%s %d %d\n\", k, b[k], m[k] }" "$raw"/part.*.txt | sort >expect &&
    grep -v "^#" halo.trip | sort >actual &&
    test_cmp expect actual &&
    cm_run eval --matrix halo.trip --hierarchy 2:3 --distances 1:10 --mapping block --weight msgs >msgs.out &&
    cm_run eval --matrix halo.trip --hierarchy 2:3 --distances 1:10 --mapping block --weight bytes >bytes.out &&
    ! test_cmp msgs.out bytes.out
'

test_expect_success 'p2p and coll parts stay separate through the round trip' '
    raw=colls.d &&
    cm_run profile show colls-copy --ntasks 4 --format mtx --part coll --output coll.mtx &&
    awk "\$1 == \"coll\" && \$4 > 0 { printf \"%d %d %.17g\n\", \$2 + 1, \$3 + 1, \$4 }" "$raw"/part.*.txt | sort >expect &&
    sorted_mtx coll.mtx >actual &&
    test_cmp expect actual
'

# A part is one row of the run's matrix: stored alone, the other ranks
# would look idle.  Import names what is missing, and takes it only when
# told (--partial); merge reads its input the same way.
test_expect_success 'import of one part of 6 is refused, naming the ranks missing' '
    test_must_fail cm_run profile import halo.d/part.2.txt --job-name one 2>err &&
    grep -x "clustermap profile import: halo.d/part.2.txt: the part of rank 2 of a run of 6 ranks, ranks 0-1,3-5 missing; give the directory of all its parts, or --partial to import this one alone" err &&
    test_must_fail cm_run profile import halo.d/part.0.txt --job-name one 2>err &&
    grep "rank 0 of a run of 6 ranks, ranks 1-5 missing" err &&
    test_must_fail cm_run profile merge halo.d/part.5.txt --job-name halo 2>err &&
    grep "rank 5 of a run of 6 ranks, ranks 0-4 missing" err &&
    cm_run profile list >list &&
    ! grep "^one " list
'

test_expect_success 'import --partial of one part: its row only, the other ranks empty' '
    cm_run profile import halo.d/part.2.txt --job-name one --partial >out &&
    grep -x "imported halo.d/part.2.txt as .one. with 6 tasks for .*" out &&
    cm_run profile show one --ntasks 6 --format triplets >one.trip &&
    grep -v "^#" one.trip | awk "{ print \$1 }" | sort -u >srcs &&
    echo 2 >want && test_cmp want srcs
'

test_expect_success 'a directory lacking parts is refused with them named; --partial takes it' '
    mkdir halo.part && cp halo.d/part.1.txt halo.d/part.4.txt halo.part/ &&
    test_must_fail cm_run profile import halo.part --job-name some 2>err &&
    grep -x "clustermap profile import: halo.part: 4 of 6 ranks have no part; refusing an incomplete profile (missing: 0,2-3,5); --partial imports it all the same" err &&
    cm_run profile import halo.part --job-name some --partial &&
    cm_run profile show some --ntasks 6 --format triplets >some.trip &&
    grep -v "^#" some.trip | awk "{ print \$1 }" | sort -u >srcs &&
    printf "1\n4\n" >want && test_cmp want srcs
'

# program_of NAME: the PROGRAM column of NAME in profile list.
program_of() {
    cm_run profile list >list &&
    awk -v n="$1" '$1 == n { print $NF }' list
}

test_expect_success 'import of the parts of an MPI program: list and show name it' '
    test "$(program_of halo)" = halo2d &&
    test "$(program_of colls)" = colls &&
    cm_run profile show halo --ntasks 6 >show &&
    grep -x "program=halo2d" show &&
    test -f "$(find store -name halo.6.json.program)" &&
    test "$(program_of halo-copy)" = - &&
    cm_run profile show halo-copy --ntasks 6 >show &&
    ! grep "^program=" show
'

test_expect_success 'parts naming two programs name none; a re-import drops the old name' '
    cp -r halo.d mixed.d &&
    sed -i "s/^program halo2d\$/program other/" mixed.d/part.3.txt &&
    grep -x "program other" mixed.d/part.3.txt &&
    cm_run profile import mixed.d --job-name mixed &&
    test "$(program_of mixed)" = - &&
    test -z "$(find store -name "mixed.*.program")" &&
    cm_run profile import halo.d --job-name mixed --force &&
    test "$(program_of mixed)" = halo2d &&
    cm_run profile import mixed.d --job-name mixed --force &&
    test "$(program_of mixed)" = - &&
    test -z "$(find store -name "mixed.*.program")"
'

test_expect_success 'delete removes the program file with the profile' '
    test -n "$(find store -name halo.6.json.program)" &&
    cm_run profile delete halo --ntasks 6 &&
    test -z "$(find store -name "halo.6.json*")"
'

test_expect_success '--partial is documented, and refused by actions that read no input' '
    cm_run profile import --help >help &&
    grep -- "--partial" help &&
    test_must_fail cm_run profile show halo --ntasks 6 --partial 2>err &&
    grep "option .--partial. does not apply to .show." err
'

test_done
