package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import jnr.ffi.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fallback: without a shim, or with a kernel that refuses rings, devices keep the thread pool. */
class IoUringTest {
    @TempDir
    Path dir;

    /** A shim whose kernel refuses every ring with {@code errno}. */
    private static LibUringShim refusing(int errno) {
        return new LibUringShim() {
            @Override
            public Pointer ushim_ring_new(int entries, int[] err) {
                err[0] = -errno;
                return null;
            }

            @Override
            public void ushim_ring_free(Pointer ring) {
                throw new AssertionError("no ring was made");
            }

            @Override
            public int ushim_abi() {
                return ABI;
            }

            @Override
            public int ushim_open_direct(String path, int writable) {
                throw new AssertionError("no ring was made");
            }

            @Override
            public int ushim_close(int fd) {
                throw new AssertionError("no ring was made");
            }

            @Override
            public int ushim_queue(Pointer ring, long request, long address, int length, long offset, long userData) {
                throw new AssertionError("no ring was made");
            }

            @Override
            public int ushim_submit(Pointer ring) {
                throw new AssertionError("no ring was made");
            }

            @Override
            public int ushim_wait(Pointer ring, int timeoutMillis) {
                throw new AssertionError("no ring was made");
            }

            @Override
            public int ushim_reap(Pointer ring, Pointer out, int max) {
                throw new AssertionError("no ring was made");
            }
        };
    }

    @Test
    void aKernelThatRefusesRingsIsNamedWithItsErrno() {
        String why = IoUring.unavailableReason(refusing(1));
        assertTrue(why.contains("errno 1") && why.contains("EPERM"), why);
    }

    @Test
    void aDeviceWhoseRingIsRefusedKeepsServingThroughThePool() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        FileBlockDevice d = FileBlockDevice.open(dir.resolve("disk.img"), 1 << 20, 512, pool);
        try {
            IOException e = assertThrows(IOException.class, () -> d.useIoUring(refusing(12), Thread::new));
            assertTrue(e.getMessage().contains("refuses io_uring (errno 12)"), e.getMessage());
            assertEquals("threads", d.backingIo());
            byte[] data = new byte[4096];
            Arrays.fill(data, (byte) 3);
            ByteBuf src = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(4096))
                    .clear()
                    .writeBytes(data);
            Completion w = new Completion();
            d.write(0, src, false, w);
            assertEquals(IoStatus.OK, w.await());
            ByteBuf dst = Unpooled.directBuffer(4096);
            Completion r = new Completion();
            d.read(0, 4096, dst, r);
            assertEquals(IoStatus.OK, r.await());
            assertArrayEquals(data, ByteBufUtil.getBytes(dst));
        } finally {
            d.close();
            pool.shutdownNow();
        }
    }

    @Test
    void aShimThatDoesNotLoadIsNamed() {
        String before = System.getProperty(LibUringShim.PATH_PROPERTY);
        Path missing = dir.resolve("no-such-libnumaiscsi-uring.so");
        System.setProperty(LibUringShim.PATH_PROPERTY, missing.toString());
        try {
            IOException e = assertThrows(IOException.class, LibUringShim::load);
            assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty(LibUringShim.PATH_PROPERTY);
            } else {
                System.setProperty(LibUringShim.PATH_PROPERTY, before);
            }
        }
    }
}
