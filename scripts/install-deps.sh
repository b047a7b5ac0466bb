#!/bin/sh
# Install the Debian 12 packages listed in scripts/debian-packages.txt.
# Idempotent and non-interactive; waits and retries while another apt/dpkg
# holds the lock; verifies every installed version against its pinned series.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
list="$here/debian-packages.txt"

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-deps: must run as root (or have sudo) to call apt-get" >&2
        exit 1
    fi
fi

pkgs=$(grep -v '^[[:space:]]*#' "$list" | awk 'NF {print $1}')

installed_version() {
    dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null |
        awk '$1 == "installed" {print $2}'
}

missing=
for p in $pkgs; do
    [ -n "$(installed_version "$p")" ] || missing="$missing $p"
done

retry() {
    # apt-get fails fast when the dpkg/apt lock is busy: wait for it.
    n=0
    until "$@"; do
        n=$((n + 1))
        if [ "$n" -ge 30 ]; then
            echo "install-deps: giving up after $n attempts: $*" >&2
            return 1
        fi
        echo "install-deps: apt busy or failed, retrying in 10 s ($n/30)" >&2
        sleep 10
    done
}

if [ -n "$missing" ]; then
    echo "install-deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    retry $SUDO apt-get -o DPkg::Lock::Timeout=120 update -qq
    # shellcheck disable=SC2086
    retry $SUDO apt-get -o DPkg::Lock::Timeout=120 install -y -qq $missing
else
    echo "install-deps: all $(echo $pkgs | wc -w) packages present"
fi

bad=0
grep -v '^[[:space:]]*#' "$list" | awk 'NF {print $1, $2}' | while read -r p pat; do
    v=$(installed_version "$p")
    # shellcheck disable=SC2254
    case "$v" in
        $pat) ;;
        *) echo "install-deps: $p is '$v', expected series '$pat' ($list)" >&2; exit 1 ;;
    esac
done || bad=1
exit $bad
