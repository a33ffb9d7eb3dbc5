#!/usr/bin/env bash
# build-fio-libiscsi.sh - build fio WITH the libiscsi engine into PREFIX (default
# /opt/fio-libiscsi). Debian's and Ubuntu's fio packages are built without it
# (`fio --enghelp` lists no libiscsi), so this rebuilds the distribution's own fio
# source package with --enable-libiscsi. About 1-2 minutes on 2 cores. Run as root.
#
# The source package comes through apt itself: deb-src entries are derived from the
# system's apt sources into a private apt state under $WORK, so /etc/apt stays untouched.
# Skips the build when PREFIX already has an fio with the libiscsi engine.
set -euo pipefail
PREFIX=${PREFIX:-/opt/fio-libiscsi}
WORK=${WORK:-/tmp/fio-libiscsi-build}

has_engine() { [[ -x $PREFIX/bin/fio ]] && "$PREFIX/bin/fio" --enghelp 2>/dev/null | grep -qw libiscsi; }
if has_engine; then echo "already built: $PREFIX/bin/fio ($("$PREFIX/bin/fio" --version))"; exit 0; fi

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -q)
"${APT[@]}" install --no-install-recommends \
  build-essential pkg-config libiscsi-dev zlib1g-dev libaio-dev dpkg-dev >/dev/null

# deb-src twins of the system's deb entries (one-line and deb822 formats)
rm -rf "$WORK/sources.list.d" "$WORK/src"
mkdir -p "$WORK/sources.list.d" "$WORK/lists/partial" "$WORK/src"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [[ -f $f ]] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f"
done > "$WORK/sources.list.d/src.list"
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -f $f ]] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$WORK/sources.list.d/$(basename "$f")"
done
O=(-o "Dir::Etc::sourcelist=-" -o "Dir::Etc::sourceparts=$WORK/sources.list.d"
   -o "Dir::State::Lists=$WORK/lists" -o "Dir::Cache::srcpkgcache=")
# third-party repositories often publish no Sources index: their errors are not fatal here
"${APT[@]}" "${O[@]}" update >"$WORK/update.log" 2>&1 || echo "apt-get update (deb-src) had errors, see $WORK/update.log" >&2

cd "$WORK/src"
"${APT[@]}" "${O[@]}" source --download-only fio >"$WORK/source.log" 2>&1 ||
  { cat "$WORK/source.log" >&2; echo "could not download the fio source package" >&2; exit 1; }
tar xf "$(ls fio_*.orig.tar.* | grep -v "\.asc$" | head -1)"
cd "$(find . -maxdepth 1 -type d -name 'fio-*' | head -1)"
./configure --enable-libiscsi --prefix="$PREFIX" > "$WORK/configure.log"
grep -E '^iscsi engine +yes' "$WORK/configure.log" ||
  { cat "$WORK/configure.log" >&2; echo "configure did not enable the libiscsi engine" >&2; exit 1; }
make -j"$(nproc)" >"$WORK/make.log" 2>&1 || { tail -30 "$WORK/make.log" >&2; exit 1; }
make install >/dev/null
has_engine || { echo "$PREFIX/bin/fio has no libiscsi engine" >&2; exit 1; }
echo "built: $PREFIX/bin/fio ($("$PREFIX/bin/fio" --version)) with the libiscsi engine"
