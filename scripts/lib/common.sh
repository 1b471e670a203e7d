# shellcheck shell=bash
# Helpers shared by the fairpix scripts. Source it; it must stay safe under
# `set -euo pipefail` (no unset variables, no commands that fail by design).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC2034 # used by the scripts that source this file
STATE_DIR="${FAIRPIX_STATE_DIR:-$ROOT/.fairpix}"

log() { printf '[fairpix] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

have_cmd() { command -v "$1" >/dev/null 2>&1; }
need_cmd() {
  have_cmd "$1" || die "'$1' is required but not on PATH${2:+ (install: $2)}"
}

# Only a listening TCP socket counts; a TIME_WAIT leftover does not block bind().
port_in_use() {
  [[ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]]
}

# apt-get update is slow-ish and only needed once, however many packages we add.
_FAIRPIX_APT_UPDATED=0
ensure_apt_pkg() {
  local bin="$1" pkg="$2"
  have_cmd "$bin" && return 0
  _apt_install "$pkg" "$bin"
  have_cmd "$bin" || die "installed $pkg but '$bin' is still not on PATH"
}

# A shared library (by its soname, e.g. libheif.so.1) from a Debian package, for code loaded at
# run time (JNA) rather than a command.
have_lib() {
  # No grep -q: quitting early would end ldconfig with SIGPIPE, a failure under pipefail.
  ldconfig -p 2>/dev/null | grep "[[:space:]]$1 " >/dev/null || ls /usr/lib/*/"$1" /usr/lib/"$1" >/dev/null 2>&1
}
ensure_apt_lib() {
  local lib="$1" pkg="$2"
  have_lib "$lib" && return 0
  _apt_install "$pkg" "$lib"
  have_lib "$lib" || die "installed $pkg but $lib is still not found (ldconfig -p)"
}

_apt_install() {
  local pkg="$1" what="$2"
  if ! have_cmd apt-get; then
    die "'$what' is missing and there is no apt-get here; install the package that provides it ($pkg on Debian/Ubuntu)"
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    have_cmd sudo || die "'$what' is missing; run as root or install it: apt-get install $pkg"
    sudo=(sudo)
  fi
  # dpkg ignores -qq and prints pages; keep it for when something goes wrong.
  local out
  out=$(mktemp)
  if [[ $_FAIRPIX_APT_UPDATED -eq 0 ]]; then
    log "apt-get update (to install $pkg)"
    if ! "${sudo[@]}" apt-get update -qq >"$out" 2>&1; then
      cat "$out" >&2; rm -f "$out"
      die "apt-get update failed; install $pkg yourself"
    fi
    _FAIRPIX_APT_UPDATED=1
  fi
  log "installing $pkg (for $what)"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "$pkg" >"$out" 2>&1; then
    tail -n 30 "$out" >&2; rm -f "$out"
    die "apt-get install $pkg failed"
  fi
  rm -f "$out"
}

# The codec libraries the worker loads at run time: libheif (HEIC/AVIF, with libde265, dav1d,
# libaom and x265 as its dependencies). Without it the worker runs and refuses HEIC/AVIF jobs.
# And bubblewrap, the sandbox of the worker's processor processes (docs/processors.md): without it
# they run unsandboxed (network reachable, the file system readable), which the worker logs once.
ensure_image_libs() {
  ensure_apt_lib libheif.so.1 libheif1
  ensure_apt_pkg bwrap bubblewrap
  ensure_codecs_current
}

# The codec packages a worker loads from the system: libheif and the codecs it loads. Crafted
# images reach them, so an installed one is upgraded when the package lists offer a newer version
# (Debian's security releases, e.g. libde265 1.0.11-1+deb12u2 -> u4 here on 2026-12-07). OpenCV's
# own codecs (libjpeg-turbo, libpng, libwebp, libtiff) are built into its jar: they change with
# the OpenCV build only (the worker logs their versions at start).
CODEC_PACKAGES=(libheif1 libde265-0 libx265-199 libdav1d6 libaom3)

# Upgrades the outdated ones among CODEC_PACKAGES. The package lists are refreshed at most once a
# day (a stamp in $STATE_DIR); offline, what is installed is kept and the script says so.
ensure_codecs_current() {
  have_cmd apt-get && have_cmd dpkg-query && have_cmd apt-cache || return 0
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    have_cmd sudo || { log "codec packages not checked for updates: not root and no sudo"; return 0; }
    sudo=(sudo)
  fi
  mkdir -p "$STATE_DIR"
  local stamp="$STATE_DIR/apt-lists.stamp"
  if [[ $_FAIRPIX_APT_UPDATED -eq 0 && -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]]; then
    if "${sudo[@]}" apt-get update -qq >/dev/null 2>&1; then
      _FAIRPIX_APT_UPDATED=1
      touch "$stamp"
    else
      log "apt-get update failed: codec packages kept as installed, not checked for security releases"
      return 0
    fi
  fi
  local p installed candidate outdated=()
  for p in "${CODEC_PACKAGES[@]}"; do
    installed=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) || continue
    [[ -n "$installed" ]] || continue
    candidate=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')
    [[ -n "$candidate" && "$candidate" != "(none)" ]] || continue
    if dpkg --compare-versions "$candidate" gt "$installed"; then outdated+=("$p=$candidate"); fi
  done
  [[ ${#outdated[@]} -gt 0 ]] || return 0
  log "upgrading codec packages to their current releases: ${outdated[*]}"
  local out
  out=$(mktemp)
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --only-upgrade --no-install-recommends "${outdated[@]%%=*}" >"$out" 2>&1; then
    tail -n 20 "$out" >&2
    log "codec upgrade failed (see above); the installed versions stay"
  fi
  rm -f "$out"
}

# Prints a JDK's full version ("25.0.3", "1.8.0_392") or nothing.
# The release file is instant; running java is the fallback for odd layouts.
_jdk_version() {
  local d="$1" v=""
  [[ -x "$d/bin/java" ]] || return 0
  if [[ -r "$d/release" ]]; then
    v=$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$d/release" | head -n1)
  fi
  if [[ -z "$v" ]]; then
    v=$("$d/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1) || true
  fi
  printf '%s' "$v"
}

# "1.8.0_392" -> 8, "17.0.15" -> 17, "25" -> 25, "" -> 0
_jdk_major() {
  local v="$1"
  [[ $v == 1.* ]] && v="${v#1.}"
  v="${v%%[!0-9]*}"
  printf '%s' "${v:-0}"
}

# Picks a JDK >= 21 (the project's minimum) and makes it the one on PATH.
find_jdk() {
  local min=21 d real v found=() cands=()
  declare -A seen=()

  # Candidate order matters: an explicit JAVA_HOME wins, then the newest
  # system JDK, then whatever `java` on PATH belongs to.
  [[ -n "${JAVA_HOME:-}" ]] && cands+=("$JAVA_HOME")
  local sys=()
  for d in /usr/lib/jvm/*; do
    [[ -d "$d" ]] || continue
    real=$(readlink -f "$d")
    [[ -n "${seen[$real]:-}" ]] && continue
    seen[$real]=1
    v=$(_jdk_version "$real")
    [[ -n "$v" ]] && sys+=("$v $real")
  done
  if ((${#sys[@]})); then
    while read -r _ d; do cands+=("$d"); done < <(printf '%s\n' "${sys[@]}" | sort -rV)
  fi
  if have_cmd java; then
    cands+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi

  seen=()
  for d in "${cands[@]}"; do
    real=$(readlink -f "$d" 2>/dev/null) || continue
    [[ -n "${seen[$real]:-}" ]] && continue
    seen[$real]=1
    v=$(_jdk_version "$real")
    [[ -z "$v" ]] && continue
    found+=("$v at $real")
    if (($(_jdk_major "$v") >= min)); then
      export JAVA_HOME="$real"
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  done

  local list="none"
  if ((${#found[@]})); then
    list=$(printf '%s; ' "${found[@]}")
    list="${list%; }"
  fi
  printf '%s\n' "[fairpix] ERROR: fairpix needs a JDK >= $min (found: $list). Install one, e.g. \`apt-get install openjdk-21-jdk-headless\` or Temurin 21+, or set JAVA_HOME." >&2
  exit 2
}

# A zombie still passes `kill -0`; PID 1 here reaps orphans slowly, so a
# stopped server can look alive for seconds unless we read its state.
pid_alive() {
  local pid="$1" stat
  [[ -n "$pid" ]] || return 1
  stat=$(ps -o stat= -p "$pid" 2>/dev/null) || return 1
  [[ -n "$stat" && $stat != Z* ]]
}

# Milliseconds since the epoch, for timings.
now_ms() {
  local t="${EPOCHREALTIME/[.,]/}"
  printf '%s' "$((t / 1000))"
}

# ---- Docker (scripts/image, the container tests) ----
#
# ensure_docker: a Docker engine that answers on $DOCKER_HOST (default the system socket). One
# that already answers is used as it is; otherwise Debian's docker.io is installed and dockerd
# started here with no bridge and no iptables rules: containers use the host's network
# (`--network host`), so they reach the stack on 127.0.0.1 and nothing goes to a private range.
# `stop_docker` stops it again, and only when this shell started it.
# FAIRPIX_DOCKER_DATA_ROOT: dockerd's images and layers (default /var/lib/docker, kept between runs
# so that scripts/image's cached base survives).
_FAIRPIX_DOCKERD_PID=""
docker_answers() {
  timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}
ensure_docker() {
  start_docker || die "no working Docker engine (above)"
}
# As ensure_docker, but says what is wrong and returns 1 instead of exiting.
start_docker() {
  ensure_apt_pkg dockerd docker.io
  need_cmd docker "apt-get install docker.io"
  if docker_answers; then return 0; fi
  if [[ -n "${DOCKER_HOST:-}" && "$DOCKER_HOST" != unix:///var/run/docker.sock ]]; then
    log "DOCKER_HOST=$DOCKER_HOST does not answer (docker version); start that engine or unset DOCKER_HOST"
    return 1
  fi
  if [[ $(id -u) -ne 0 ]]; then
    log "no Docker engine answers and only root can start dockerd here; start one (with --bridge=none --iptables=false: fairpix's containers use the host network) or run as root"
    return 1
  fi
  local logf="$STATE_DIR/logs/dockerd.log" t0
  mkdir -p "$STATE_DIR/logs" "$STATE_DIR/run"
  log "starting dockerd (no bridge, no iptables; log $logf)"
  t0=$(now_ms)
  (exec dockerd --bridge=none --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
    --data-root "${FAIRPIX_DOCKER_DATA_ROOT:-/var/lib/docker}" --pidfile "$STATE_DIR/run/dockerd.pid" \
    --host unix:///var/run/docker.sock --log-level warn) </dev/null >>"$logf" 2>&1 &
  _FAIRPIX_DOCKERD_PID=$!
  local i
  for ((i = 0; i < 120; i++)); do
    if docker_answers; then
      log "dockerd ready in $(($(now_ms) - t0)) ms (pid $_FAIRPIX_DOCKERD_PID)"
      return 0
    fi
    pid_alive "$_FAIRPIX_DOCKERD_PID" || break
    sleep 0.5
  done
  tail -n 20 "$logf" >&2
  if pid_alive "$_FAIRPIX_DOCKERD_PID"; then kill "$_FAIRPIX_DOCKERD_PID" 2>/dev/null || true; fi
  _FAIRPIX_DOCKERD_PID=""
  log "dockerd did not start (this machine may forbid it); log: $logf"
  return 1
}
# Stops the dockerd that ensure_docker started in this shell (its containers stop with it);
# FAIRPIX_DOCKER_KEEP=1 leaves it running (to `docker run` the image by hand afterwards).
stop_docker() {
  local pid="$_FAIRPIX_DOCKERD_PID" i
  [[ -n "$pid" ]] || return 0
  _FAIRPIX_DOCKERD_PID=""
  pid_alive "$pid" || return 0
  if [[ "${FAIRPIX_DOCKER_KEEP:-0}" == 1 ]]; then
    log "dockerd left running (pid $pid, FAIRPIX_DOCKER_KEEP=1); stop it with: kill $pid"
    return 0
  fi
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 60; i++)); do pid_alive "$pid" || return 0; sleep 0.5; done
  log "dockerd (pid $pid) still runs 30 s after SIGTERM; left running"
}

# ---- jars of the Java servers (Kafka, S3Proxy), shared by scripts/stack and scripts/kafka-cluster ----

# shellcheck disable=SC2034 # used by the scripts that source this file
INFRA_DIR="$ROOT/scripts/infra"
LOG_DIR="$STATE_DIR/logs"
LIB_DIR="$STATE_DIR/lib"

# Milliseconds as seconds with one decimal, for logs ("2.9 s").
fmt_ms() { printf '%d.%01d s' "$(($1 / 1000))" "$(($1 % 1000 / 100))"; }

# Downloads a service's runtime jars once. The marker holds the POM's hash, so
# an interrupted copy or an edited POM leads to a fresh download.
fetch_jars() {
  mkdir -p "$LOG_DIR" "$LIB_DIR"
  local name="$1" pom="$INFRA_DIR/$1/pom.xml" dest="$LIB_DIR/$1" stamp tmp t0
  stamp=$(sha256sum <"$pom" | cut -d' ' -f1)
  if [[ -f "$dest/.complete" && "$(<"$dest/.complete")" == "$stamp" ]]; then
    return 0
  fi
  need_cmd mvn "Maven 3.6.3+, e.g. apt-get install maven"
  log "downloading $name jars with Maven (first run only)..."
  t0=$(now_ms)
  tmp="$dest.tmp.$$"
  # Leftovers of an interrupted download are useless; the marker was never written.
  rm -rf "$dest".tmp.*
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies \
      -DoutputDirectory="$tmp" -DincludeScope=runtime >"$LOG_DIR/mvn-$name.log" 2>&1; then
    tail -n 30 "$LOG_DIR/mvn-$name.log" >&2
    rm -rf "$tmp"
    die "could not download the $name jars (full log: $LOG_DIR/mvn-$name.log)"
  fi
  rm -rf "$dest"
  mv "$tmp" "$dest"
  printf '%s\n' "$stamp" >"$dest/.complete"
  log "$name jars ready ($(find "$dest" -name '*.jar' | wc -l) jars, $(fmt_ms $(($(now_ms) - t0))))"
}
