#!/bin/sh
test_description='clustermap profile: the profile store (import/export round
trip, concurrent ingestion, crash safety, refusal of bad input, per-user
isolation)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

CLUSTERMAP_STORE=$PWD/store
export CLUSTERMAP_STORE
unset CLUSTERMAP_FAULT_INJECT

# mkraw JOBID BYTES [RANKS]: a raw profile in which ranks 0 and 1 exchange
# BYTES bytes (2 messages each way) and rank 2 sends 100 bytes to rank 3 in
# collectives.
mkraw() {
    printf 'clustermap-raw 1\nranks %s\njob %s 0\nprogram app\n' "${3:-4}" "$1"
    printf 'p2p 0 1 %s 2\np2p 1 0 %s 2\ncoll 2 3 100 1\nend 3\n' "$2" "$2"
}

# sorted_mtx FILE: the entries of a Matrix Market file, one "i j value" per
# line with the value normalised, sorted.
sorted_mtx() {
    grep -v '^%' "$1" | tail -n +2 | awk '{ printf "%d %d %.17g\n", $1, $2, $3 }' | sort
}

# valid_profile NAME NTASKS [USER]: show succeeds and prints runs=...
valid_profile() {
    cm_run profile show "$1" --ntasks "$2" ${3:+--user "$3"} >show.out &&
    grep "^runs=[0-9][0-9]*$" show.out
}

test_expect_success 'profile --help and an action --help exit 0' '
    cm_run profile --help >out &&
    grep "^Usage: clustermap profile" out &&
    for a in list show export import merge ingest delete; do
        cm_run profile $a --help >out &&
        grep "^Usage: clustermap profile $a" out || return 1
    done
'

test_expect_success 'usage errors exit 2' '
    test_expect_code 2 "$CLUSTERMAP" profile 2>err &&
    grep "missing action" err &&
    test_expect_code 2 "$CLUSTERMAP" profile frob 2>err &&
    grep "unknown action .frob." err &&
    test_expect_code 2 "$CLUSTERMAP" profile show cg 2>err &&
    grep "missing --ntasks" err &&
    test_expect_code 2 "$CLUSTERMAP" profile list --weight 0.5 2>err &&
    grep "does not apply" err &&
    test_expect_code 2 "$CLUSTERMAP" profile ingest x --user 0 --job-name a --weight 2 2>err &&
    grep "weight" err
'

test_expect_success 'an empty store lists nothing' '
    cm_run profile list >out &&
    test $(wc -l <out) = 1
'

test_expect_success 'import .mtx, export JSON, import JSON, show --format mtx equals the original' '
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name cg >out &&
    grep "as .cg. with 16 tasks" out &&
    cm_run profile export cg --ntasks 16 --output cg.json &&
    grep "\"format\": \"clustermap-profile\"" cg.json &&
    cm_run profile import cg.json --job-name cg-copy &&
    cm_run profile show cg-copy --ntasks 16 --format mtx --output copy.mtx &&
    sorted_mtx "$CM_MATRICES/cg.S.16.mtx" >expect &&
    sorted_mtx copy.mtx >actual &&
    test_cmp expect actual &&
    cm_run profile export cg-copy --ntasks 16 >copy.json &&
    sed "/job_name/d; /checksum/d; /_update/d" cg.json >a &&
    sed "/job_name/d; /checksum/d; /_update/d" copy.json >b &&
    test_cmp a b
'

test_expect_success 'import refuses to replace without --force' '
    test_must_fail cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name cg 2>err &&
    grep "exists already" err &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name cg --force
'

test_expect_success 'list and show summarise the profile' '
    cm_run profile list >out &&
    grep "^cg  *16  *1 .* 56131584  *-$" out &&
    cm_run profile show cg --ntasks 16 >out &&
    test "$(cm_value runs out)" = 1 &&
    test "$(cm_value ntasks out)" = 16 &&
    test "$(cm_value p2p.bytes out)" = 56131584 &&
    test "$(cm_value total.nnz out)" = 48 &&
    test "$(cm_value top.1 out)" = "0 1 1171712 0 2.09%" &&
    test $(grep -c "^top\." out) = 10
'

test_expect_success 'import of METIS, triplets and raw files; raw found by its magic' '
    printf "4 2\n2\n1 3\n2\n\n" >g.graph &&
    cm_run profile import g.graph --job-name g &&
    cm_run profile show g --ntasks 4 >out &&
    test "$(cm_value p2p.nnz out)" = 4 &&
    printf "0 1 10 2\n1 0 5 1\n" >t.txt &&
    cm_run profile import t.txt --job-name t --format triplets &&
    cm_run profile show t --ntasks 2 >out &&
    test "$(cm_value p2p.msgs out)" = 3 &&
    mkraw 42 1000 >r.data &&
    cm_run profile import r.data --job-name r &&
    cm_run profile show r --ntasks 4 >out &&
    test "$(cm_value jobs out)" = 42.0 &&
    test "$(cm_value coll.bytes out)" = 100 &&
    cm_run profile show r --ntasks 4 --format mtx --part coll >coll.mtx &&
    test "$(tail -n 1 coll.mtx)" = "3 4 100"
'

test_expect_success 'merge with a weight: (1 - w) old + w new' '
    mkraw 43 3000 >r2.data &&
    cm_run profile merge r2.data --job-name r --weight 0.25 >out &&
    grep "runs=2" out &&
    cm_run profile show r --ntasks 4 >out &&
    test "$(cm_value p2p.bytes out)" = 3000 &&
    test "$(cm_value jobs out)" = 42.0,43.0 &&
    test_must_fail cm_run profile merge r2.data --job-name nothing 2>err &&
    grep "no profile of .nothing. with 4 tasks to merge into" err
'

test_expect_success 'ingest of 16 concurrent runs loses none (weight mean)' '
    for k in $(seq 1 16); do mkraw $((1000 + k)) $k >run$k.raw || return 1; done &&
    for k in $(seq 1 16); do
        cm_run profile ingest run$k.raw --user 0 --job-name conc --weight mean >/dev/null &
    done &&
    wait &&
    cm_run profile show conc --ntasks 4 >out &&
    test "$(cm_value runs out)" = 16 &&
    test "$(cm_value jobs out | tr , "\n" | sort -u | wc -l)" = 16 &&
    cm_value p2p.bytes out | awk "{ exit !(\$1 > 17 - 1e-9 && \$1 < 17 + 1e-9) }" &&
    test "$(cm_value coll.bytes out)" = 100
'

test_expect_success 'a writer killed at any stage leaves the old or the new profile' '
    mkraw 1 10 >k.raw &&
    cm_run profile ingest k.raw --user 0 --job-name killed >/dev/null &&
    runs=1 &&
    for stage in temp-created temp-partial before-fsync before-rename after-rename; do
        test_expect_code 137 env CLUSTERMAP_FAULT_INJECT=$stage \
            "$CLUSTERMAP" profile ingest k.raw --user 0 --job-name killed &&
        valid_profile killed 4 &&
        if test $stage = after-rename; then runs=$((runs + 1)); fi &&
        test "$(cm_value runs show.out)" = $runs || return 1
    done &&
    test_expect_code 137 env CLUSTERMAP_FAULT_INJECT=before-rename \
        "$CLUSTERMAP" profile ingest k.raw --user 0 --job-name killed &&
    ls -a store/0 | grep "^\.killed\.4\.json\.tmp\." &&
    cm_run profile ingest k.raw --user 0 --job-name killed >out &&
    grep "runs=$((runs + 1))" out &&
    ! ls -a store/0 | grep "\.tmp\."
'

test_expect_success 'writers killed at random times never leave a torn profile' '
    for i in $(seq 1 20); do
        "$CLUSTERMAP" profile ingest k.raw --user 0 --job-name killed >/dev/null 2>&1 &
        pid=$! &&
        sleep 0.00$i &&
        kill -9 $pid 2>/dev/null
        wait $pid
        valid_profile killed 4 || return 1
    done &&
    for f in store/0/*.json; do
        cm_run profile import "$f" --job-name check --force >/dev/null || return 1
    done
'

test_expect_success 'malformed JSON is refused naming the file and the field' '
    sed "s/\"runs\": 1,/\"runs\": \"1\",/" cg.json >bad-type.json &&
    test_must_fail cm_run profile import bad-type.json --job-name x 2>err &&
    grep "bad-type.json: field .runs.: expected an integer, got a string" err &&
    sed "s/\"ntasks\": 16/\"ntasks\": 8/" cg.json >bad-range.json &&
    test_must_fail cm_run profile import bad-range.json --job-name x 2>err &&
    grep "bad-range.json: field .p2p.entries\[[0-9]*\]\[[01]\]" err &&
    sed "s/1171712/1171713/" cg.json >bad-sum.json &&
    test_must_fail cm_run profile import bad-sum.json --job-name x 2>err &&
    grep "bad-sum.json: field .checksum." err &&
    sed "s/\"version\": 1/\"version\": 9/" cg.json >bad-version.json &&
    test_must_fail cm_run profile import bad-version.json --job-name x 2>err &&
    grep "field .version.: expected schema version 1, got 9" err &&
    head -c 700 cg.json >truncated.json &&
    test_must_fail cm_run profile import truncated.json --job-name x 2>err &&
    grep "truncated.json: truncated JSON document" err &&
    mkraw 5 5 | sed "s/^end 3/end 4/" >bad.raw &&
    test_must_fail cm_run profile ingest bad.raw --user 0 --job-name x 2>err &&
    grep "bad.raw:8: expected end count 3, got .4." err
'

test_expect_success 'oversized and symlinked inputs are refused' '
    test_must_fail cm_run profile import cg.json --job-name x --max-bytes 100 2>err &&
    grep "cg.json: file is [0-9]* bytes, more than the limit of 100 bytes" err &&
    test_must_fail cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name x --max-bytes 100 2>err &&
    grep "more than the limit" err &&
    ln -s cg.json link.json &&
    test_must_fail cm_run profile import link.json --job-name x 2>err &&
    grep "link.json: is a symbolic link" err &&
    ln -s k.raw link.raw &&
    test_must_fail cm_run profile ingest link.raw --user 0 --job-name x 2>err &&
    grep "link.raw" err &&
    ln -s "$PWD/store/0/cg.16.json" store/0/sym.16.json &&
    test_must_fail cm_run profile show sym --ntasks 16 2>err &&
    grep "sym.16.json: is a symbolic link" err &&
    test_must_fail cm_run profile list 2>err &&
    grep "sym.16.json: is a symbolic link" err &&
    rm store/0/sym.16.json
'

test_expect_success 'a profile edited in the store is refused' '
    sed "s/1171712/1171713/" store/0/cg.16.json >edited &&
    cp edited store/0/cg.16.json &&
    test_must_fail cm_run profile show cg --ntasks 16 2>err &&
    grep "store/0/cg.16.json: field .checksum." err &&
    cm_run profile import cg.json --job-name cg --force
'

# A ring of 10000 ranks both ways: 20000 entries, above the 16384 from
# which the store writes the binary form (docs/profile-format.md).
test_expect_success 'a large profile is stored in the binary form; export gives the same JSON' '
    awk "BEGIN { for (i = 0; i < 10000; i++) { j = (i + 1) % 10000;
                 print i, j, 4096 + i % 7, 3; print j, i, 0.5 * i + 1, 1 } }" >ring.trip &&
    cm_run profile import ring.trip --job-name bigring >imp.out &&
    f=$CLUSTERMAP_STORE/$(id -u)/bigring.10000.json &&
    test "$(od -An -c -N8 "$f" | tr -d " ")" = "211CMPROF\\n" &&
    json=$(wc -c <ring.trip) && test "$(wc -c <"$f")" -lt "$json" &&
    valid_profile bigring 10000 &&
    grep "^p2p.nnz=20000$" show.out &&
    cm_run profile export bigring --ntasks 10000 --output ring.json &&
    test "$(head -c 1 ring.json)" = "{" &&
    cm_run profile import ring.json --job-name bigring2 &&
    cm_run profile export bigring2 --ntasks 10000 --output ring2.json &&
    sed "/job_name/d; /checksum/d; /_update/d" ring.json >a &&
    sed "/job_name/d; /checksum/d; /_update/d" ring2.json >b &&
    test_cmp a b
'

test_expect_success 'a corrupt binary profile is refused with the file and the field' '
    f=$CLUSTERMAP_STORE/$(id -u)/bigring.10000.json &&
    chmod u+w "$f" &&
    printf "\\002" | dd of="$f" bs=1 seek=8 conv=notrunc 2>/dev/null &&
    test_must_fail cm_run profile show bigring --ntasks 10000 2>bad.err &&
    grep "bigring.10000.json: binary profile: expected version 1, got 2" bad.err
'

test_expect_success 'delete removes one profile' '
    cm_run profile delete cg-copy --ntasks 16 &&
    test_must_fail cm_run profile show cg-copy --ntasks 16 2>err &&
    grep "no profile .cg-copy. with 16 tasks" err &&
    test_must_fail cm_run profile delete cg-copy --ntasks 16 2>err &&
    grep "no profile" err
'

if test "$(id -u)" = 0 &&
   mkraw 7 70 >perm.raw && chmod 644 perm.raw &&
   setpriv --reuid=4001 --regid=4001 --clear-groups test -r perm.raw 2>/dev/null &&
   setpriv --reuid=4001 --regid=4001 --clear-groups test -x "$CLUSTERMAP" 2>/dev/null
then
    test_set_prereq SETPRIV
fi

as_uid() {
    u=$1; shift
    setpriv --reuid=$u --regid=$u --clear-groups "$CLUSTERMAP" "$@"
}

test_expect_success SETPRIV 'root ingests for uid 4001: directory and files belong to 4001' '
    cm_run profile ingest perm.raw --user 4001 --job-name secret >out &&
    grep "runs=1" out &&
    test "$(stat -c "%u %a" store/4001)" = "4001 700" &&
    test "$(stat -c "%u %a" store/4001/secret.4.json)" = "4001 600" &&
    test "$(stat -c "%a" store)" = 711 &&
    as_uid 4001 profile show secret --ntasks 4 >out &&
    test "$(cm_value runs out)" = 1 &&
    as_uid 4001 profile ingest perm.raw --user 4001 --job-name secret >out &&
    grep "runs=2" out
'

test_expect_success SETPRIV 'uid 4002 can neither read nor change the profiles of 4001' '
    cm_run profile ingest perm.raw --user 4002 --job-name mine >/dev/null &&
    test_must_fail as_uid 4002 profile show secret --ntasks 4 --user 4001 2>err &&
    grep "store/4001: permission denied" err &&
    test_must_fail as_uid 4002 profile list --user 4001 2>err &&
    grep "permission denied" err &&
    test_must_fail as_uid 4002 profile ingest perm.raw --user 4001 --job-name secret 2>err &&
    grep "permission denied: only root may write the profiles of uid 4001" err &&
    test_must_fail as_uid 4002 profile delete secret --ntasks 4 --user 4001 2>err &&
    grep "permission denied" err &&
    test_must_fail as_uid 4002 profile import store/4001/secret.4.json 2>err &&
    grep "secret.4.json: Permission denied" err &&
    as_uid 4002 profile list >out &&
    grep "^mine " out &&
    as_uid 4001 profile show secret --ntasks 4 >out &&
    test "$(cm_value runs out)" = 2
'

if test "$(id -u)" = 0 && mkdir small && mount -t tmpfs -o size=16k tmpfs small 2>/dev/null
then
    test_set_prereq TMPFS
fi

test_expect_success TMPFS 'a full disk keeps the old profile and leaves no temporary file' '
    test_when_finished "umount small" &&
    S=$PWD/small/store &&
    CLUSTERMAP_STORE=$S cm_run profile ingest k.raw --user 0 --job-name full &&
    cp small/store/0/full.4.json before.json &&
    { dd if=/dev/zero of=small/filler bs=1k 2>/dev/null; true; } &&
    test_must_fail env CLUSTERMAP_STORE="$S" "$CLUSTERMAP" profile ingest k.raw \
        --user 0 --job-name full 2>err &&
    grep "No space left on device" err &&
    test_cmp before.json small/store/0/full.4.json &&
    ! ls -a small/store/0 | grep "\.tmp\." &&
    rm small/filler &&
    CLUSTERMAP_STORE=$S cm_run profile ingest k.raw --user 0 --job-name full >out &&
    grep "runs=2" out
'

# One configuration: without --store and $CLUSTERMAP_STORE the command uses
# the store of the plugin's line in Slurm's plugstack.conf (includes too).
test_expect_success 'no --store: the store of plugstack.conf.s clustermap line' '
    st=$(mktemp -d) && test_when_finished "rm -rf \"$st\"" &&
    mkdir -p site/p.d &&
    printf "# site\ninclude p.d/*.conf\n" >site/plugstack.conf &&
    printf "optional /usr/lib/x/other.so store=/nowhere\n" >site/p.d/a.conf &&
    printf "required /usr/lib/x/clustermap.so prof_lib=/x store=$st\n" \
        >site/p.d/cm.conf &&
    touch site/slurm.conf &&
    (unset CLUSTERMAP_STORE && SLURM_CONF=$PWD/site/slurm.conf &&
     export SLURM_CONF &&
     "$CLUSTERMAP" profile import "$CM_MATRICES/cg.S.16.mtx" --job-name sitecg &&
     "$CLUSTERMAP" profile list >site.list) &&
    test -f "$st/0/sitecg.16.json" &&
    grep "^sitecg " site.list &&
    ! test -f "$CLUSTERMAP_STORE/0/sitecg.16.json"
'

# Deflate bombs (test/sh/lib/mkbomb.pl): binary profiles whose deflated
# body is millions of 3-byte entries.  Readers hold what they decoded, at
# most CM_PROFILE_MAX_ENTRIES (2^24) entries; a larger count is refused
# before anything is decoded.  Peak RSS in kB by /usr/bin/time; the
# bounds leave room for a sanitizer build.
if test -x /usr/bin/time && perl -MCompress::Zlib -e 1 2>/dev/null; then
    test_set_prereq TIME_ZLIB
fi
mkbomb() {
    perl "$SHARNESS_TEST_DIRECTORY/lib/mkbomb.pl" "$@"
}
rss_of() {
    /usr/bin/time -f %M -o rss "$@"
}

test_expect_success TIME_ZLIB 'a 0.2 MB file of 200 MB of minimal entries: list refuses it at its count, in bounded memory' '
    rm -rf "$CLUSTERMAP_STORE" &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name keep >/dev/null &&
    mkbomb "$CLUSTERMAP_STORE/0/bomb.1048576.json" bomb 1048576 66666666 &&
    chmod 600 "$CLUSTERMAP_STORE/0/bomb.1048576.json" &&
    test "$(stat -c %s "$CLUSTERMAP_STORE/0/bomb.1048576.json")" -lt 250000 &&
    test_expect_code 1 rss_of "$CLUSTERMAP" profile list >out 2>err &&
    say "profile list of the bomb: $(tail -n 1 rss) kB" &&
    test "$(tail -n 1 rss)" -lt 150000 &&
    grep "bomb.1048576.json: binary profile, p2p at byte 25 of the body: 66666666 entries (0 before them) are above the limit of 16777216 entries a profile" err &&
    grep "^keep " out &&
    test_expect_code 1 rss_of "$CLUSTERMAP" profile prune --all-users --older-than 1 \
        --now 4000000000 >out 2>err &&
    say "profile prune --all-users of the bomb: $(tail -n 1 rss) kB" &&
    test "$(tail -n 1 rss)" -lt 150000 &&
    grep "above the limit of 16777216 entries a profile; not pruned" err &&
    grep "^removed keep with 16 tasks" out
'

test_expect_success TIME_ZLIB 'a bomb at the entry ceiling is decoded within the memory ceiling, then refused by its checksum' '
    rm -rf "$CLUSTERMAP_STORE" &&
    cm_run profile import "$CM_MATRICES/cg.S.16.mtx" --job-name keep >/dev/null &&
    mkbomb "$CLUSTERMAP_STORE/0/bomb.1048576.json" bomb 1048576 16777216 &&
    chmod 600 "$CLUSTERMAP_STORE/0/bomb.1048576.json" &&
    test_expect_code 1 rss_of "$CLUSTERMAP" profile list >out 2>err &&
    say "profile list of a bomb at the ceiling: $(tail -n 1 rss) kB" &&
    test "$(tail -n 1 rss)" -lt 1500000 &&
    grep "bomb.1048576.json: binary profile: the checksum does not match the content: the file was modified or is corrupt$" err &&
    ! grep "fnv1a64\|expected checksum" err
'

# A full key (NAME@PROGRAM) is looked up as srun does (cm_store_load),
# without listing the store.
test_expect_success TIME_ZLIB 'a lookup by key refuses a profile of another key before its entries' '
    mv "$CLUSTERMAP_STORE/0/bomb.1048576.json" \
        "$CLUSTERMAP_STORE/0/other%40halo-0123abcd.1048576.json" &&
    test_expect_code 1 rss_of "$CLUSTERMAP" profile show other@halo-0123abcd \
        --ntasks 1048576 >out 2>err &&
    say "profile show of a bomb of another key: $(tail -n 1 rss) kB" &&
    test "$(tail -n 1 rss)" -lt 150000 &&
    grep "other%40halo-0123abcd.1048576.json: holds the profile of .bomb. with 1048576 tasks, expected .other@halo-0123abcd. with 1048576 tasks (fields .job_name., .ntasks.)$" err
'

test_done
