# shellcheck shell=bash
# Shared by bin/numa-iscsi-target and bin/run-tests: find or install a JDK 17+ and Maven
# (Debian/Ubuntu apt), run as root or through sudo for apt only.

log() { echo "${LOG_TAG:-setup}: $*" >&2; }
die() { log "$*"; exit 1; }
# SCRIPT's --help: its leading comment block (from line 2 to the first line that is not a comment)
print_header_help() { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$1"; }

# Runs "$@" as root: directly when root, else with sudo when present, else explains and exits.
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root to run: $* (no sudo). Please install: ${MISSING_PKGS:-the packages above}"
  fi
}

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# apt_install PKG... : installs the packages (apt-get update first when the lists are empty,
# and once more if an install fails on stale lists).
apt_install() {
  [[ $# -gt 0 ]] || return 0
  MISSING_PKGS="$*"
  command -v apt-get >/dev/null || die "no apt-get: please install $* yourself"
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q)
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    log "apt-get update"; as_root "${apt[@]}" update >/dev/null
  fi
  log "apt-get install $*"
  if ! as_root "${apt[@]}" install --no-install-recommends "$@" >/dev/null; then
    log "install failed; apt-get update and retry"
    as_root "${apt[@]}" update >/dev/null
    as_root "${apt[@]}" install --no-install-recommends "$@" >/dev/null
  fi
}

java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

# Sets JAVA to a java >= 17 ($JAVA_HOME, PATH, then /usr/lib/jvm); with "jdk", one that has javac.
# Exports JAVA_HOME to match (Maven uses it). Returns 1 if there is none.
find_java() {
  local want=${1:-jre} cand home
  for cand in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null)" /usr/lib/jvm/*/bin/java; do
    [[ -n $cand && -x $cand ]] || continue
    cand=$(readlink -f "$cand")
    [[ $(java_major "$cand") -ge 17 ]] 2>/dev/null || continue
    home=$(dirname "$(dirname "$cand")")
    [[ $want == jdk && ! -x $home/bin/javac ]] && continue
    JAVA=$cand; export JAVA_HOME=$home
    return 0
  done
  return 1
}

# ensure_build_tools: a JDK 17+ and Maven, installing openjdk-17-jdk-headless / maven if missing.
ensure_build_tools() {
  local pkgs=()
  find_java jdk || pkgs+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null || pkgs+=(maven)
  apt_install "${pkgs[@]}"
  find_java jdk || die "no JDK 17+ found after installing openjdk-17-jdk-headless"
}

# The newest input of the daemon build (any pom.xml or main source outside target/), or nothing
# when the jar is newer than all of them.
sources_newer_than() {
  local root=$1 ref=$2
  find "$root" \( -name target -o -name .git -o -name fio-tests -o -name node_modules \) -prune -o \
    \( -name pom.xml -o -path '*/src/main/*' \) -type f -newer "$ref" -print -quit
}
