#!/bin/sh
# Builds the io_uring shim into $1/native/linux-x86_64/libnumaiscsi-uring.so (called by Maven at process-classes).
# Needs gcc and liburing's headers (Debian liburing-dev). When they are missing and we run as root with apt-get,
# they are installed (CI); otherwise the shim is skipped with a message and file-backed LUNs use the backing-io
# thread pool (the daemon's log says so).
set -u
out="$1/native/linux-x86_64"
src="$(dirname "$0")/uring_shim.c"
have_headers() {
    [ -f /usr/include/liburing.h ]
}
if ! have_headers; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${URING_SHIM_NO_INSTALL:-}" = "" ]; then
        echo "blockdev: installing liburing-dev for the io_uring shim"
        DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y --no-install-recommends liburing-dev \
            >/dev/null 2>&1 || true
    fi
fi
if ! have_headers || ! command -v gcc >/dev/null 2>&1; then
    echo "blockdev: WARNING: no gcc or no liburing headers (apt-get install liburing-dev);"
    echo "blockdev: WARNING: building WITHOUT the io_uring shim - file-backed LUNs will use the backing-io threads"
    exit 0
fi
mkdir -p "$out"
gcc -O2 -g -Wall -Wextra -Werror -fPIC -fvisibility=hidden -shared -o "$out/libnumaiscsi-uring.so" "$src" \
    -Wl,--no-as-needed -luring || exit 1
echo "blockdev: built $out/libnumaiscsi-uring.so"
