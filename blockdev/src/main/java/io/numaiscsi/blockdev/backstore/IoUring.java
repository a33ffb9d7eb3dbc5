package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import jnr.ffi.Pointer;

/** Whether this process can use io_uring for backing files: the shim loads once, and the kernel grants a ring. */
public final class IoUring {
    private static final int PROBE_ENTRIES = 8;

    private IoUring() {}

    /**
     * The loaded shim.
     *
     * @throws IOException why there is none (this build has no shim, or it does not load)
     */
    public static LibUringShim shim() throws IOException {
        if (Holder.SHIM == null) {
            throw Holder.FAILURE;
        }
        return Holder.SHIM;
    }

    /** null when a ring can be created here, else why not (no shim, or the kernel's errno). */
    public static String unavailableReason() {
        try {
            return unavailableReason(shim());
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    static String unavailableReason(LibUringShim shim) {
        int[] err = new int[1];
        Pointer ring = shim.ushim_ring_new(PROBE_ENTRIES, err);
        if (ring == null) {
            return "the kernel refuses io_uring (errno " + -err[0] + (-err[0] == 38 ? ": ENOSYS, needs Linux 5.11" : "")
                    + (-err[0] == 1 ? ": EPERM, io_uring disabled by sysctl or seccomp" : "") + ")";
        }
        shim.ushim_ring_free(ring);
        return null;
    }

    private static final class Holder {
        static final IOException FAILURE;
        static final LibUringShim SHIM;

        static {
            LibUringShim shim = null;
            IOException failure = null;
            try {
                shim = LibUringShim.load();
            } catch (IOException e) {
                failure = e;
            }
            SHIM = shim;
            FAILURE = failure;
        }
    }
}
