#!/bin/sh
test_description='the man pages document the options the code accepts

clustermap.1 against the --help of clustermap, of every command and of
every profile action, both ways: the options of a Usage: line are in the
command'"'"'s SYNOPSIS and the SYNOPSIS has no others; every option of a
--help is defined (a .TP tag) in a section of the command; every option a
section defines, and every option the page names anywhere, is accepted by
some command.  clustermap_spank.8 and the argument table of
docs/admin-guide.md against the plugstack.conf arguments (the rows of the
argument table of src/launch/config.c) and the algorithms it accepts, and
clustermap_spank.8 against the modes and modifiers of srun --mapping=help
(src/launch/options.c).'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
# CLUSTERMAP_BUILD (as for the profiler and plugin tests) names the build
# directory when CLUSTERMAP is not set.
if test -z "${CLUSTERMAP:-}" && test -n "${CLUSTERMAP_BUILD:-}"
then CLUSTERMAP=$CLUSTERMAP_BUILD/clustermap
fi
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib/clustermap.sh"

MAN1=$CM_ROOT/docs/man/clustermap.1
MAN8=$CM_ROOT/docs/man/clustermap_spank.8
GUIDE=$CM_ROOT/docs/admin-guide.md
CONFIG_C=$CM_ROOT/src/launch/config.c
OPTIONS_C=$CM_ROOT/src/launch/options.c

# The commands and profile actions that must exist: --help must list at
# least these (the test covers whatever it lists).
COMMANDS="plan eval render profile"
ACTIONS="list show export import merge ingest delete reset"

# A command is a key: "clustermap" (the top level), "plan", "profile",
# "profile+show"...; its --help is help.KEY.

# long_opts: the long options on stdin, sorted, one a line.
long_opts() {
    grep -oE -- '--[a-z][a-z0-9]*(-[a-z0-9]+)*' | sort -u
}

# help_opts FILE: the options a --help text offers -- every one of its
# Usage: block, and the one each definition line starts with (indented 1
# to 4 blanks: "  --xxx ..." or "  -x, --xxx ...").  Options named in the
# prose (lstopo --of, srun --distribution=) are not the command's.
help_opts() {
    { sed -n '/^Usage:/,/^$/p' "$1" | long_opts
      sed -n -E 's/^ {1,4}(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' "$1"
    } | sort -u
}

# usage_opts FILE: the options of the Usage: block alone.
usage_opts() {
    sed -n '/^Usage:/,/^$/p' "$1" | long_opts
}

# roff_text FILE: the page with groff's \- as -, without font escapes and
# quotes, line for line (macros kept).
roff_text() {
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\e/\\/g' \
        -e 's/"//g' "$1"
}

# section NAME: the lines of section NAME of a roff_text page (stdin).
section() {
    awk -v s="$1" '/^\.SH/ { sub(/^\.SH +/, ""); in_s = ($0 == s); next }
                   in_s'
}

# tags: the tag lines of the .TP paragraphs on stdin, without their macro.
tags() {
    awk '/^\.TP/ { t = 1; next }
         t { sub(/^\.[A-Z]+ */, ""); print; t = 0 }'
}

# sections_of KEY: the sections of clustermap.1 that define KEY's options.
sections_of() {
    case $1 in
    clustermap) echo OPTIONS ;;
    plan) echo OPTIONS MATRIX MACHINE PLANNING ;;
    eval) echo OPTIONS MATRIX MACHINE EVALUATION ;;
    render) echo OPTIONS MATRIX MACHINE RENDER ;;
    profile|profile+*) echo OPTIONS PROFILE ;;
    explain) echo OPTIONS PROFILE ;;   # --store and --user, as profile's
    calibrate) echo OPTIONS MACHINE CALIBRATE ;;
    *) echo OPTIONS "$(echo "$1" | tr a-z A-Z)" ;;
    esac
}

# not_in LIST FILE: the lines of LIST missing from FILE, named on stderr;
# false if there are any.
not_in() {
    missing=$(comm -23 "$1" "$2") &&
    { test -z "$missing" || { echo "$missing" | sed "s/^/missing: /" >&2; false; }; }
}

# synopsis: the SYNOPSIS of a roff_text page (stdin) as "KEY text" lines,
# one a paragraph; the words after "clustermap" up to the first that is
# not a lower-case word name the command ("clustermap" alone: the top).
synopsis() {
    section SYNOPSIS | awk '
        function flush() {
            if (p == "") return
            n = split(p, w, " "); key = ""
            for (j = 1; j <= n && w[j] != "clustermap"; j++) ;
            for (j++; j <= n && w[j] ~ /^[a-z]+$/; j++)
                key = key (key == "" ? "" : "+") w[j]
            print (key == "" ? "clustermap" : key), p; p = ""
        }
        /^\.PP/ { flush(); next }
        { sub(/^\.[A-Z]+ */, ""); p = p " " $0 }
        END { flush() }'
}

# config_keys: the keys of the argument table of src/launch/config.c (its
# rows start with { "key", CFG_...), in the table's order.
config_keys() {
    awk '/^static const cfg_key_t keys\[\] = \{/,/^\};/' "$CONFIG_C" |
        sed -n 's/^ *{ "\([a-z_]*\)", CFG_.*/\1/p'
}

# config_algorithms: the values of algorithm= (the table algs[]).
config_algorithms() {
    awk '/algs\[\] =/,/};/' "$CONFIG_C" | grep -oE '"[a-z-]+"' | tr -d '"'
}

# guide_keys: the keys in the first column of the argument table of
# docs/admin-guide.md (a cell may hold several: `a=`, `b=`).
guide_keys() {
    sed -n '/^| argument | default | meaning |/,/^$/p' "$GUIDE" | sed 1,2d |
        awk -F ' [|] ' '{ print $1 }' | grep -oE '`[a-z_]+=' | tr -d '`=' |
        sort -u
}

# mapping_help WHAT: the modes (WHAT=Modes) or modifiers (Modifiers) of
# cmp_help_text in src/launch/options.c: lines "  name  text" after
# "WHAT:" up to the next heading or blank line; name=NAME gives name=.
mapping_help() {
    awk '/cmp_help_text\[\] =/,/;$/' "$OPTIONS_C" |
        awk -v h="\"$1:" 'index($0, h) == 1 { on = 1; next }
                           on && !/^"  / { on = 0 }
                           on' |
        sed -n 's/^"  \([a-z][a-z]*=\{0,1\}\).*/\1/p' | sort -u
}

# man_words SECTION: the lower-case words (name= kept) of SECTION's tags
# in clustermap_spank.8.
man_words() {
    section "$1" <man8.txt | tags | grep -oE '[a-z]+=?' | sort -u
}

test_expect_success 'clustermap --help and profile --help list every command and action' '
    cm_run --help >help.clustermap &&
    sed -n "/^Commands:/,/^\$/s/^  \([a-z][a-z]*\) .*/\1/p" help.clustermap >commands &&
    cm_run profile --help >help.profile &&
    sed -n "/^Actions:/,/^\$/s/^  \([a-z][a-z]*\).*/\1/p" help.profile >actions &&
    for c in $COMMANDS; do
        grep -qx "$c" commands || { echo "no command $c" >&2; return 1; }
    done &&
    for a in $ACTIONS; do
        grep -qx "$a" actions || { echo "no action $a" >&2; return 1; }
    done &&
    { echo clustermap; cat commands; sed "s/^/profile+/" actions; } >keys &&
    for key in $(cat keys); do
        case $key in clustermap|profile) continue ;; esac
        cm_run $(echo $key | tr + " ") --help >help.$key || return 1
    done
'

test_expect_success 'clustermap.1: SYNOPSIS and the options each section defines' '
    roff_text "$MAN1" >man1.txt &&
    synopsis <man1.txt >synopsis &&
    cut -d" " -f1 synopsis | sort -u >synopsis.keys &&
    sort keys >keys.sorted &&
    { not_in synopsis.keys keys.sorted || { echo "(SYNOPSIS of an unknown command)" >&2; false; }; } &&
    for s in $(for key in $(cat keys); do sections_of $key; done | tr " " "\n" | sort -u); do
        section "$s" <man1.txt >section.$s &&
        { test -s section.$s || { echo "clustermap.1: no section $s" >&2; return 1; }; } &&
        tags <section.$s | long_opts >tags.$s || return 1
    done
'

for key in $(cat keys 2>/dev/null); do
    cmd=$(echo "clustermap $key" | sed -e "s/^clustermap clustermap/clustermap/" -e "s/+/ /")
    test_expect_success "clustermap.1 has the options of $cmd --help" '
        help_opts help.$key >opts &&
        test -s opts &&
        usage_opts help.$key >usage &&
        { grep -q "^$key " synopsis || { echo "clustermap.1: no SYNOPSIS of $cmd" >&2; false; }; } &&
        awk -v k=$key "\$1 == k" synopsis | long_opts >syn &&
        not_in usage syn &&
        not_in syn opts &&
        for s in $(sections_of $key); do cat tags.$s; done | sort -u >defined &&
        not_in opts defined
    '
done

test_expect_success 'clustermap.1: each section defines only options of its commands' '
    for s in $(ls section.* | sed "s/^section\.//"); do
        for key in $(cat keys); do
            case " $(sections_of $key) " in *" $s "*) help_opts help.$key ;; esac
        done | sort -u >accepted.$s &&
        { not_in tags.$s accepted.$s || { echo "(in section $s)" >&2; false; }; } || return 1
    done
'

test_expect_success 'clustermap.1: every option it names is accepted by some command' '
    for key in $(cat keys); do help_opts help.$key; done | sort -u >all-opts &&
    sed -E "s/(lstopo|srun|sbatch|salloc|smpirun|mpirun) --[a-z0-9=-]+//g" man1.txt |
        long_opts >named &&
    test -s named &&
    not_in named all-opts
'

test_expect_success 'config.c: its argument table has each key once' '
    config_keys >keys.table &&
    test $(wc -l <keys.table) -ge 20 &&
    sort keys.table >keys.all &&
    sort -u keys.table >keys.parsed &&
    test_cmp keys.all keys.parsed
'

test_expect_success 'clustermap_spank.8: ARGUMENTS has every plugstack.conf argument, and only those' '
    roff_text "$MAN8" >man8.txt &&
    section ARGUMENTS <man8.txt | tags | grep -oE "[a-z_]+=" | tr -d = | sort -u >keys.man &&
    test_cmp keys.parsed keys.man
'

test_expect_success 'admin-guide.md: the argument table has every plugstack.conf argument, and only those' '
    guide_keys >keys.guide &&
    test_cmp keys.parsed keys.guide
'

test_expect_success 'algorithm=: the man page and the guide name every algorithm config.c accepts' '
    config_algorithms >algs &&
    test $(wc -l <algs) -ge 5 &&
    awk "/^\.TP/ { t = 0 } /^\.BI algorithm=/ { t = 1 } t" man8.txt >alg.man &&
    grep "^| \`algorithm=" "$GUIDE" >alg.guide &&
    for a in $(cat algs); do
        grep -qw -- "$a" alg.man || { echo "clustermap_spank.8: no algorithm $a" >&2; return 1; }
        grep -qw -- "$a" alg.guide || { echo "admin-guide.md: no algorithm $a" >&2; return 1; }
    done
'

test_expect_success 'clustermap_spank.8: MODES and MODIFIERS are those of --mapping=help' '
    mapping_help Modes >modes.help &&
    mapping_help Modifiers >modifiers.help &&
    test $(wc -l <modes.help) -ge 5 &&
    test $(wc -l <modifiers.help) -ge 4 &&
    man_words MODES >modes.man &&
    man_words MODIFIERS >modifiers.man &&
    test_cmp modes.help modes.man &&
    test_cmp modifiers.help modifiers.man
'

test_done
