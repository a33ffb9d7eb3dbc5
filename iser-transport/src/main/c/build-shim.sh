#!/bin/sh
# Builds the verbs shim into $1/native/linux-x86_64/libnumaiscsi-iser.so (called by Maven at process-classes).
# Needs gcc and the rdma-core headers (libibverbs-dev, librdmacm-dev). When they are missing and we run as
# root with apt-get, they are installed (CI); otherwise the shim is skipped with a message and the jar simply
# has no iSER support (the daemon says so when an iSER portal is configured).
set -u
out="$1/native/linux-x86_64"
src="$(dirname "$0")/iser_shim.c"
have_headers() {
    [ -f /usr/include/infiniband/verbs.h ] && [ -f /usr/include/rdma/rdma_cma.h ]
}
if ! have_headers; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${ISER_SHIM_NO_INSTALL:-}" = "" ]; then
        echo "iser-transport: installing libibverbs-dev librdmacm-dev for the verbs shim"
        DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y --no-install-recommends \
            libibverbs-dev librdmacm-dev >/dev/null 2>&1 || true
    fi
fi
if ! have_headers || ! command -v gcc >/dev/null 2>&1; then
    echo "iser-transport: WARNING: no gcc or no rdma-core headers (apt-get install libibverbs-dev librdmacm-dev);"
    echo "iser-transport: WARNING: building WITHOUT the iSER verbs shim - iSER portals will not start"
    exit 0
fi
mkdir -p "$out"
gcc -O2 -g -Wall -Wextra -Werror -fPIC -fvisibility=hidden -shared -o "$out/libnumaiscsi-iser.so" "$src" \
    -Wl,--no-as-needed -lrdmacm -libverbs || exit 1
echo "iser-transport: built $out/libnumaiscsi-iser.so"
