package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The calls a disk read makes into the io_uring shim allocate nothing on the Java heap. */
class UringShimAllocationTest {
    private static final int DEPTH = 8;
    private static final int BLOCK = 4096;

    @TempDir
    Path dir;

    @Test
    void queueSubmitWaitAndReapAllocateNothing() throws Exception {
        assumeTrue(IoUring.unavailableReason() == null, IoUring::unavailableReason);
        LibUringShim shim = IoUring.shim();
        Path file = dir.resolve("lun");
        Files.write(file, new byte[DEPTH * BLOCK]);
        int fd = shim.ushim_open_direct(file.toString(), 0);
        assumeTrue(fd >= 0, () -> dir + " does not take O_DIRECT (errno " + -fd + ")");
        jnr.ffi.Runtime runtime = jnr.ffi.Runtime.getSystemRuntime();
        Pointer buffers = Memory.allocateDirect(runtime, (DEPTH + 1) * BLOCK);
        long aligned = (buffers.address() + BLOCK - 1) & -BLOCK;
        Pointer reaped = Memory.allocateDirect(runtime, DEPTH * 16);
        int[] err = new int[1];
        Pointer ring = shim.ushim_ring_new(DEPTH, err);
        assertEquals(0, err[0]);
        try {
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long id = Thread.currentThread().getId();
            for (int i = 0; i < 5_000; i++) { // warm up: the JIT may allocate while it compiles
                readAll(shim, ring, fd, aligned, reaped);
            }
            long before = mx.getThreadAllocatedBytes(id);
            for (int i = 0; i < 5_000; i++) {
                readAll(shim, ring, fd, aligned, reaped);
            }
            long allocated = mx.getThreadAllocatedBytes(id) - before;
            assertTrue(allocated < 4096, allocated + " bytes allocated by " + 5_000 * DEPTH + " reads");
        } finally {
            shim.ushim_ring_free(ring);
            shim.ushim_close(fd);
        }
    }

    /** One read of every block, all in flight at once, as the engine queues, submits, waits and reaps them. */
    private static void readAll(LibUringShim shim, Pointer ring, int fd, long buffer, Pointer reaped) {
        for (int i = 0; i < DEPTH; i++) {
            long request = LibUringShim.request(LibUringShim.READ, fd);
            assertEquals(0, shim.ushim_queue(ring, request, buffer, BLOCK, (long) i * BLOCK, i));
        }
        assertEquals(DEPTH, shim.ushim_submit(ring));
        int done = 0;
        while (done < DEPTH) {
            shim.ushim_wait(ring, 1000);
            int n = shim.ushim_reap(ring, reaped, DEPTH);
            for (int i = 0; i < n; i++) {
                assertEquals(BLOCK, reaped.getLong(16L * i + 8), "bytes read");
            }
            done += n;
        }
    }
}
