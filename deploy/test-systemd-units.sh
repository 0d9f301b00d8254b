#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run from traps and through check() look unreachable to shellcheck
# Checks deploy/systemd/ without a running systemd (there is none in this container):
#   - `systemd-analyze verify` on each unit. verify refuses a unit whose ExecStart binary does not exist
#     ("Command /usr/local/bin/flagserver is not executable"), and flagserver is not installed here, so each
#     unit is copied into a temp dir with the ExecStart path replaced by a placeholder executable; nothing else
#     changes. verify only WARNS (exit 0) on a misspelt key or value, so any output counts as a failure; a
#     negative control shows a typo is caught.
#   - the PostgreSQL layout's units (deploy/cluster/): patroni.service verified, and flagserver.service with its
#     PostgreSQL drop-in (verify reads NAME.service.d/ next to the unit; a negative control shows it does).
#   - `systemd-analyze security --offline=yes`: the exposure score of each service.
#   - the hardening directives the deployment promises are present.
#   - the backup wrapper: a real SQLite backup into place, pruning to FLAGSERVER_BACKUP_KEEP, nothing pruned
#     when the backup fails, bad settings refused.
#   - MemoryDenyWriteExecute: systemd 252's seccomp rule (testing/mdwe-exec.c) applied to a Swift program
#     (testing/mdwe-probe.swift) and, with FLAGSERVER_BIN set, to the real flagserver serving a request.
# Environment: FLAGSERVER_BIN=path/to/flagserver uses the real binary (default: a sqlite3-based stand-in for
# `flagserver backup`), TEST_TIMEOUT (180 s), KEEP_WORK=1.
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
units=$repo/deploy/systemd
TEST_TIMEOUT=${TEST_TIMEOUT:-180}
FLAGSERVER_BIN=${FLAGSERVER_BIN:-}

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

work=$(mktemp -d /tmp/systemd-units.XXXXXX)
server_pid='' watchdog_pid='' tracer=()
stop_server() { # SIGTERM to flagserver (under strace: strace's child, the traced process), 15 s, then SIGKILL
    local target i
    target=$(pgrep -P "$server_pid" | head -n1)
    [[ -n ${tracer[*]:-} && -n $target ]] || target=$server_pid
    kill -TERM "$target" 2>/dev/null
    for ((i = 0; i < 150; i++)); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$server_pid" 2>/dev/null; then
        echo "  (flagserver did not stop in 15 s: SIGKILL)"
        kill -KILL "$target" "$server_pid" 2>/dev/null
    fi
    wait "$server_pid" 2>/dev/null
}
cleanup() {
    trap - EXIT INT TERM
    [[ -n $server_pid ]] && stop_server
    [[ -n $watchdog_pid ]] && kill "$watchdog_pid" 2>/dev/null && wait "$watchdog_pid" 2>/dev/null
    if [[ ${KEEP_WORK:-} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'fail "interrupted or timed out"; exit 1' INT TERM
( trap 'kill "$s" 2>/dev/null; exit 0' TERM; sleep "$TEST_TIMEOUT" & s=$!; wait "$s" &&
  { echo "test-systemd-units.sh: $TEST_TIMEOUT s limit reached" >&2; kill -TERM $$; } ) &
watchdog_pid=$!

if ! command -v systemd-analyze > /dev/null; then
    skip "systemd-analyze is not installed: units not verified"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 0
fi

# ---- systemd-analyze verify, with the ExecStart binaries replaced by a placeholder ----
mkdir -p "$work/bin" "$work/units"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/placeholder"
chmod +x "$work/bin/placeholder"
render_unit() { # unit file -> the same text with the installed binaries' paths pointing at the placeholder
    sed -e "s|/usr/local/bin/flagserver|$work/bin/placeholder|g" \
        -e "s|/usr/local/lib/flagserver/flagserver-backup|$work/bin/placeholder|g" "$1"
}
for unit in flagserver.service flagserver-backup.service flagserver-backup.timer; do
    render_unit "$units/$unit" > "$work/units/$unit"
done
verify_clean() { # files...: exit 0 AND nothing printed (verify only warns on unknown keys and bad values)
    local out
    out=$(cd "$work/units" && systemd-analyze verify "$@" 2>&1)
    local code=$?
    [[ -n $out ]] && printf '    %s\n' "${out//$'\n'/$'\n'    }"
    [[ $code == 0 && -z $out ]]
}
check "systemd-analyze verify flagserver.service: clean" verify_clean "$work/units/flagserver.service"
check "systemd-analyze verify flagserver-backup.timer + .service: clean" \
    verify_clean "$work/units/flagserver-backup.timer" "$work/units/flagserver-backup.service"

# Negative controls: the check above does catch a misspelt value and a misspelt key.
sed 's/^ProtectSystem=strict$/ProtectSystem=strictt/' "$work/units/flagserver.service" > "$work/units/typo-value.service"
sed 's/^ProtectHome=yes$/ProtectHom=yes/' "$work/units/flagserver.service" > "$work/units/typo-key.service"
caught_value() { ! verify_clean "$work/units/typo-value.service" > /dev/null; }
caught_key() { ! verify_clean "$work/units/typo-key.service" > /dev/null; }
check "negative control: a misspelt value (ProtectSystem=strictt) is caught" caught_value
check "negative control: a misspelt key (ProtectHom=) is caught" caught_key
unsubstituted() { local out; out=$(systemd-analyze verify "$units/flagserver.service" 2>&1); [[ $out == *'is not executable'* ]]; }
check "why the substitution: the committed unit fails verify here only because /usr/local/bin/flagserver is absent" \
    unsubstituted

# ---- the PostgreSQL layout (deploy/cluster/): patroni.service and flagserver.service's drop-in ----
cluster=$repo/deploy/cluster
sed "s|/usr/bin/patroni|$work/bin/placeholder|g" "$cluster/patroni.service" > "$work/units/patroni.service"
check "systemd-analyze verify patroni.service: clean" verify_clean "$work/units/patroni.service"
# verify reads drop-ins from NAME.service.d/ next to the unit it is given.
mkdir -p "$work/units/flagserver.service.d"
cp "$cluster/flagserver-postgresql.conf" "$work/units/flagserver.service.d/postgresql.conf"
check "systemd-analyze verify flagserver.service with the PostgreSQL drop-in: clean" verify_clean "$work/units/flagserver.service"
sed 's/^StartLimitIntervalSec=0$/StartLimitIntervalSek=0/' "$cluster/flagserver-postgresql.conf" > "$work/units/flagserver.service.d/postgresql.conf"
dropin_typo() { ! verify_clean "$work/units/flagserver.service" > /dev/null; }
check "negative control: a misspelt key in the drop-in is caught" dropin_typo
rm -r "$work/units/flagserver.service.d"
for directive in 'User=postgres' 'ExecStart=/usr/bin/patroni /etc/patroni/patroni.yml' 'EnvironmentFile=/etc/patroni/env.conf' \
    'KillMode=process' 'Restart=on-failure' 'NoNewPrivileges=yes' 'CapabilityBoundingSet=' 'ProtectSystem=full'; do
    check "patroni.service has $directive" grep -qx "$directive" "$cluster/patroni.service"
done
check "the drop-in lets flagserver retry until PostgreSQL answers (StartLimitIntervalSec=0)" \
    grep -qx 'StartLimitIntervalSec=0' "$cluster/flagserver-postgresql.conf"
if dpkg-query -W -f='${Status}' patroni 2>/dev/null | grep -q "install ok installed"; then
    check "Debian's patroni package installs /usr/bin/patroni (patroni.service's ExecStart)" \
        grep -qx /usr/bin/patroni <(dpkg -L patroni)
else
    skip "Debian's patroni package is not installed: ExecStart=/usr/bin/patroni not checked against it"
fi

# ---- the promised hardening is in the unit ----
for directive in 'User=flagserver' 'StateDirectory=flagserver' 'ProtectSystem=strict' 'ProtectHome=yes' \
    'PrivateTmp=yes' 'NoNewPrivileges=yes' 'CapabilityBoundingSet=' \
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' 'SystemCallFilter=@system-service' \
    'MemoryDenyWriteExecute=yes' 'Restart=on-failure' 'KillSignal=SIGTERM' 'TimeoutStopSec=20s' \
    'EnvironmentFile=/etc/flagserver/flagserver.env'; do
    check "flagserver.service has $directive" grep -qx "$directive" "$units/flagserver.service"
done

# ---- systemd-analyze security: exposure (0 = nothing exposed, 10 = everything) ----
exposure() { # unit -> prints the overall exposure number
    systemd-analyze security --offline=yes --no-pager "$work/units/$1" 2>/dev/null |
        sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
for unit in flagserver.service flagserver-backup.service; do
    score=$(exposure "$unit")
    check "systemd-analyze security $unit: exposure ${score:-unknown} <= 2.0" \
        awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
done
# PostgreSQL needs more than flagserver (see the unit's comment on what is left out).
score=$(exposure patroni.service)
check "systemd-analyze security patroni.service: exposure ${score:-unknown} <= 4.0" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 4.0) }'
calendar=$(sed -n 's/^OnCalendar=//p' "$units/flagserver-backup.timer")
calendar_ok() { systemd-analyze calendar "$calendar" > /dev/null; }
check "the timer's OnCalendar=$calendar parses ($(systemd-analyze calendar "$calendar" 2>/dev/null | sed -n 's/^ *Next elapse: //p'))" \
    calendar_ok

# ---- SystemCallFilter: the allow list a unit ends up with, and the system calls a traced run made ----
allowed_syscalls() { # unit file -> one allowed system call per line (allow groups expanded, then ~ groups removed)
    python3 "$repo/deploy/testing/syscall-allow-list.py" "$1"
}
traced_syscalls() { # strace -f output file -> one system call name per line
    sed -E 's/^[0-9]+ +//' "$1" | grep -oE '^[a-z_0-9]+\(' | tr -d '(' | sort -u
}
filter_allows() { # unit strace-file: every traced call is in the unit's allow list (prints the others)
    local outside
    outside=$(comm -23 <(traced_syscalls "$2") <(allowed_syscalls "$units/$1" | sort -u) | tr '\n' ' ')
    [[ -n $outside ]] && echo "    outside $1's SystemCallFilter: $outside"
    [[ -z $outside ]]
}

# ---- the backup wrapper ----
mkdir -p "$work/state/backups"
export FLAGSERVER_DATABASE=$work/state/flags.sqlite FLAGSERVER_BACKUP_DIR=$work/state/backups
if [[ -n $FLAGSERVER_BIN ]]; then
    backup_bin=$FLAGSERVER_BIN
    "$FLAGSERVER_BIN" token create --name backup-test --role reader > /dev/null
    marker_sql="SELECT count(*) FROM tokens WHERE name = 'backup-test'"
else
    # Stand-in for `flagserver backup --to FILE` until the binary is here: the same contract (SQLite online
    # backup into FILE.partial, integrity_check, rename, refuse an existing FILE), done by sqlite3.
    backup_bin=$work/bin/flagserver-standin
    cat > "$backup_bin" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
[[ $# == 3 && $1 == backup && $2 == --to ]] || { echo "stand-in: only 'backup --to FILE'" >&2; exit 2; }
[[ ! -e $3 ]] || { echo "stand-in: $3 exists" >&2; exit 1; }
sqlite3 "$FLAGSERVER_DATABASE" ".backup '$3.partial'"
[[ $(sqlite3 "$3.partial" 'PRAGMA integrity_check') == ok ]]
mv "$3.partial" "$3"
EOF
    chmod +x "$backup_bin"
    sqlite3 "$FLAGSERVER_DATABASE" "PRAGMA journal_mode=WAL; CREATE TABLE marker(name TEXT); INSERT INTO marker VALUES ('backup-test');" > /dev/null
    marker_sql="SELECT count(*) FROM marker WHERE name = 'backup-test'"
fi
backups=$work/state/backups
for day in 01 02 03 04 05; do sqlite3 "$backups/flags-202601$day-000000.sqlite" 'CREATE TABLE old(x)'; done
echo "operator's notes" > "$backups/notes.txt"
touch -d '2 days ago' "$backups/flags-20260101-000000.sqlite.partial"
touch "$backups/flags-20260105-000000.sqlite.partial"
count_backups() { find "$backups" -maxdepth 1 -name 'flags-*.sqlite' | wc -l; }

# Run as the unit runs it: not root, and under strace when it is installed (its calls are compared with the
# backup unit's SystemCallFilter below: bash, find, sort, date, stat, rm and the backup itself).
backup_as=()
if [[ $(id -u) == 0 ]]; then
    chmod 755 "$work"
    chown -R 65534:65534 "$work/state"
    backup_as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
command -v strace > /dev/null && backup_as=(strace -f -qq -o "$work/wrapper.strace" "${backup_as[@]}")
FLAGSERVER_BIN=$backup_bin FLAGSERVER_BACKUP_KEEP=3 "${backup_as[@]}" "$units/flagserver-backup" > "$work/backup.out" 2>&1
code=$?
sed 's/^/    /' "$work/backup.out"
check "flagserver-backup ran with exit 0 (exit $code)" test "$code" = 0
newest=$(find "$backups" -maxdepth 1 -name 'flags-*.sqlite' -printf '%f\n' | sort | tail -n1)
check "the new backup is named flags-YYYYmmdd-HHMMSS.sqlite with today's UTC date ($newest)" \
    grep -qx "flags-$(date -u +%Y%m%d)-[0-9]\{6\}\.sqlite" <<<"$newest"
check "the backup passes PRAGMA integrity_check" test "$(sqlite3 "$backups/$newest" 'PRAGMA integrity_check')" = ok
check "the backup holds the live database's data ($marker_sql)" test "$(sqlite3 "$backups/$newest" "$marker_sql")" = 1
check "pruned to FLAGSERVER_BACKUP_KEEP=3 newest ($(count_backups) left, the 3 oldest gone)" \
    test "$(count_backups) $(find "$backups" -name 'flags-2026010[123]-000000.sqlite' | wc -l)" = "3 0"
check "other files are left alone (notes.txt)" test -f "$backups/notes.txt"
check "a crashed run's .partial older than a day is removed, a fresh one kept" \
    test ! -e "$backups/flags-20260101-000000.sqlite.partial" -a -e "$backups/flags-20260105-000000.sqlite.partial"
if [[ -s $work/wrapper.strace ]]; then
    sed -n '/execve(".*flagserver-backup"/,$p' "$work/wrapper.strace" > "$work/wrapper-only.strace"
    check "every system call of the backup run (wrapper, its tools, $(basename "$backup_bin")) is allowed by flagserver-backup.service's SystemCallFilter" \
        filter_allows flagserver-backup.service "$work/wrapper-only.strace"
fi
before=$(count_backups)
FLAGSERVER_BIN=/bin/false FLAGSERVER_BACKUP_KEEP=1 "$units/flagserver-backup" > "$work/backup-fail.out" 2>&1
code=$?
check "a failing backup exits non-zero ($code) and prunes nothing ($(count_backups) of $before left)" \
    test "$code" != 0 -a "$(count_backups)" = "$before"
FLAGSERVER_BIN=$backup_bin FLAGSERVER_BACKUP_KEEP=0 "$units/flagserver-backup" > "$work/backup-zero.out" 2>&1
code=$?
check "FLAGSERVER_BACKUP_KEEP=0 is refused (exit $code: $(head -c 80 "$work/backup-zero.out"))" \
    test "$code" = 2 -a "$(count_backups)" = "$before"

# ---- MemoryDenyWriteExecute and the Swift runtime ----
if [[ $(uname -m) != x86_64 ]] || ! command -v gcc > /dev/null; then
    skip "MemoryDenyWriteExecute check needs x86-64 and gcc"
else
    gcc -O2 -Wall -Wextra -Werror -o "$work/bin/mdwe-exec" "$repo/deploy/testing/mdwe-exec.c"
    wx_refused() { ! "$work/bin/mdwe-exec" python3 -c 'import mmap; mmap.mmap(-1, 4096, prot=7)' 2> /dev/null; }
    check "negative control: under the MemoryDenyWriteExecute rule a writable+executable mmap is refused" wx_refused
    if command -v swiftc > /dev/null; then
        if swiftc -parse-as-library -swift-version 6 -warnings-as-errors -o "$work/bin/mdwe-probe" \
            "$repo/deploy/testing/mdwe-probe.swift" > "$work/swiftc.log" 2>&1; then
            probe=$("$work/bin/mdwe-exec" "$work/bin/mdwe-probe" 2>&1)
            check "a Swift program (generics, async/await, Dispatch, Mutex, Foundation JSON and files) runs under it: $probe" \
                test "$probe" = "mdwe-probe ok"
            if command -v strace > /dev/null; then
                strace -f -qq -o "$work/probe.strace" "$work/bin/mdwe-probe" > /dev/null
                check "every system call of the Swift probe ($(traced_syscalls "$work/probe.strace" | wc -l) distinct) is allowed by flagserver.service's SystemCallFilter" \
                    filter_allows flagserver.service "$work/probe.strace"
            else
                skip "strace not installed: system calls not compared with SystemCallFilter"
            fi
        else
            fail "swiftc could not build deploy/testing/mdwe-probe.swift: $(tail -n 3 "$work/swiftc.log")"
        fi
    else
        skip "swiftc not found: the Swift probe under MemoryDenyWriteExecute"
    fi
    if [[ -n $FLAGSERVER_BIN ]]; then
        # As the service runs it: not root (User=flagserver). Run as root, SQLite would also fchown(2) its
        # -wal/-shm files to the database's owner, a call the unit's filter (~@privileged) refuses.
        svc=$work/svc
        mkdir -p "$svc"
        runas=()
        if [[ $(id -u) == 0 ]]; then
            chmod 755 "$work"
            chown 65534:65534 "$svc"
            runas=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        fi
        writer=$(FLAGSERVER_DATABASE=$svc/mdwe.sqlite "${runas[@]}" "$FLAGSERVER_BIN" token create --name units-test --role writer |
            grep -m1 -o 'sfl_[A-Za-z0-9_-]*')
        tracer=()
        command -v strace > /dev/null && tracer=(strace -f -qq -o "$work/server.strace")
        "${tracer[@]}" "${runas[@]}" "$work/bin/mdwe-exec" "$FLAGSERVER_BIN" --host 127.0.0.1 --port 0 --database "$svc/mdwe.sqlite" \
            --flags-dir "$repo/flags" > "$work/server.out" 2> "$work/server.err" &
        server_pid=$!
        port=''
        for ((i = 0; i < 300; i++)); do
            port=$(grep -m1 -o 'listening on http://127\.0\.0\.1:[0-9]*' "$work/server.out" | sed 's/.*://') && [[ -n $port ]] && break
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        status=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:${port:-1}/v1/environments/production/document")
        check "the real flagserver under it serves the document ($status)" test "$status" = 200
        status=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $writer" \
            -H 'Content-Type: application/json' -H 'X-Change-Message: units test' --data false \
            "http://127.0.0.1:${port:-1}/v1/environments/production/flags/showIntroFreeSubscriptionBanner")
        check "  ... and publishes a flag change (SQLite commit with fsync) under it ($status)" test "$status" = 200
        stop_server
        code=$?
        server_pid=''
        check "  ... and stops on SIGTERM with exit 0 (exit $code)" test "$code" = 0
        if ((${#tracer[@]} > 0)); then
            # The first lines are mdwe-exec's own, before its execve of flagserver: not flagserver's.
            sed -n '/execve(".*flagserver"/,$p' "$work/server.strace" > "$work/server-only.strace"
            check "every system call flagserver made (start, GET, PUT, SIGTERM; $(traced_syscalls "$work/server-only.strace" | wc -l) distinct) is allowed by flagserver.service's SystemCallFilter" \
                filter_allows flagserver.service "$work/server-only.strace"
            strace -f -qq -o "$work/backup.strace" env FLAGSERVER_DATABASE="$svc/mdwe.sqlite" \
                "${runas[@]}" "$FLAGSERVER_BIN" backup --to "$svc/traced-backup.sqlite" > /dev/null
            sed -n '/execve(".*flagserver"/,$p' "$work/backup.strace" > "$work/backup-only.strace"
            check "every system call of flagserver backup is allowed by flagserver-backup.service's SystemCallFilter" \
                filter_allows flagserver-backup.service "$work/backup-only.strace"
        fi
    else
        skip "FLAGSERVER_BIN not set: the real flagserver under MemoryDenyWriteExecute"
    fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
if ((failed > 0)); then exit 1; fi
exit 0
