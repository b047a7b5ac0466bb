# diag.sh -- sourced by sharness tests after sharness.sh.
# shellcheck shell=sh
#
# sharness runs test bodies with stderr on /dev/null unless -v: fd 7 keeps
# the script's own stderr (prove shows it, and CI's log keeps it).
#   diag FILE...   show FILEs there, "# "-prefixed, and fail:
#                  `check || diag out.err` puts what a failed check saw
#                  into prove's output
exec 7>&2
diag() {
    for f in "$@"; do
        echo "# --- $f" >&7
        sed 's/^/# /' "$f" >&7 2>/dev/null || echo "# (no such file)" >&7
    done
    return 1
}
