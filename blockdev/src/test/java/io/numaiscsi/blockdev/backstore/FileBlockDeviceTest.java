package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.nio.file.ExtendedOpenOption;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.MappingResources;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileBlockDeviceTest {
    private static final long SIZE = 8L << 20;

    @TempDir
    Path dir;

    private ExecutorService io;
    private FileBlockDevice d;

    @BeforeEach
    void open() throws IOException {
        io = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-io"));
        d = FileBlockDevice.open(dir.resolve("disk.img"), SIZE, 512, io);
    }

    @AfterEach
    void close() {
        d.close();
        io.shutdownNow();
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 13 + seed);
        }
        return b;
    }

    private IoStatus write(long offset, ByteBuf src, boolean fua) throws InterruptedException {
        Completion c = new Completion();
        d.write(offset, src, fua, c);
        return c.await();
    }

    private byte[] read(long offset, int length, ByteBuf dst) throws InterruptedException {
        Completion c = new Completion();
        d.read(offset, length, dst, c);
        assertEquals(IoStatus.OK, c.await());
        assertNotSame(Thread.currentThread(), c.thread, "completion runs off the calling thread");
        return ByteBufUtil.getBytes(dst, dst.writerIndex() - length, length);
    }

    @Test
    void mappingResourcesAreTheFilesAllocationAndItsFileSystemsFreeSpace() throws Exception {
        MappingResources r = d.mappingResources();
        assertEquals(0, r.usedBytes(), "a fresh sparse file holds no blocks");
        assertEquals(IoStatus.OK, write(1 << 20, Unpooled.wrappedBuffer(pattern(1 << 20, 3)), true));
        long used = r.usedBytes();
        assertTrue(used >= 1 << 20 && used < 2 << 20, "1 MiB written, allocated: " + used);
        assertEquals(
                Files.getFileStore(dir).getUsableSpace(), r.freeBytes(), 64L << 20, "statvfs f_bavail, give or take");
        assertTrue(r.freeShared());
        d.close();
        assertThrows(IOException.class, r::usedBytes, "a closed device's descriptor may be another file's");
    }

    @Test
    void createsSparseFileOfTheConfiguredSize() throws IOException {
        assertEquals(SIZE, Files.size(dir.resolve("disk.img")));
        assertEquals(SIZE / 512, d.blockCount());
        assertFalse(d.isMapped(0), "a fresh sparse file has no data");
    }

    @Test
    void theTmpfsEngineDoesSmallRequestsOnTheCallersThreadAndLargeOnesOnThePool() throws InterruptedException {
        d.useTmpfsInline();
        assertEquals("inline (tmpfs)", d.backingIo());
        ByteBuf small = Unpooled.directBuffer(4096).writeBytes(pattern(4096, 7));
        Completion w = new Completion();
        d.write(8192, small, false, w);
        assertEquals(IoStatus.OK, w.await());
        assertEquals(Thread.currentThread(), w.thread, "a 4 KiB write completes in place");
        Completion r = new Completion();
        ByteBuf dst = Unpooled.directBuffer(4096);
        d.read(8192, 4096, dst, r);
        assertEquals(IoStatus.OK, r.await());
        assertEquals(Thread.currentThread(), r.thread, "a 4 KiB read completes in place");
        assertArrayEquals(pattern(4096, 7), ByteBufUtil.getBytes(dst));
        ByteBuf large = Unpooled.directBuffer(128 * 1024).writeBytes(pattern(128 * 1024, 9));
        assertEquals(IoStatus.OK, write(65536, large, false));
        assertArrayEquals(pattern(128 * 1024, 9), read(65536, 128 * 1024, Unpooled.directBuffer(128 * 1024)));
        assertThrows(IllegalStateException.class, d::useTmpfsInline);
    }

    @Test
    void alignedRoundTripThroughAlignedDirectMemory() throws InterruptedException {
        int align = d.alignment();
        ByteBuffer raw = ByteBuffer.allocateDirect(2 * 65536).alignedSlice(align);
        ByteBuf src = Unpooled.wrappedBuffer(raw).clear();
        src.writeBytes(pattern(65536, 1));
        assertEquals(IoStatus.OK, write(align * 4L, src, false));
        assertEquals(0, src.readerIndex(), "device leaves src indexes alone");
        ByteBuffer rawDst = ByteBuffer.allocateDirect(2 * 65536).alignedSlice(align);
        ByteBuf dst = Unpooled.wrappedBuffer(rawDst).clear();
        assertArrayEquals(pattern(65536, 1), read(align * 4L, 65536, dst));
        assertTrue(d.isMapped(align * 4L));
    }

    @Test
    void unalignedRoundTripUsesTheBufferedPath() throws InterruptedException {
        ByteBuf src = Unpooled.wrappedBuffer(pattern(1536, 2)); // heap memory, 512-byte offset
        assertEquals(IoStatus.OK, write(512, src, false));
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(1536);
        try {
            assertArrayEquals(pattern(1536, 2), read(512, 1536, dst));
        } finally {
            dst.release();
        }
        ByteBuf heap = Unpooled.buffer(100);
        heap.writeByte(9); // data is appended at the writer index
        read(512, 512, heap);
        assertEquals(9, heap.getByte(0));
        assertEquals(513, heap.writerIndex());
    }

    @Test
    void pageCacheModeNeverUsesDirectIoAndRoundTrips() throws Exception {
        d.close();
        d = FileBlockDevice.open(dir.resolve("buffered.img"), SIZE, 512, io, false);
        assertFalse(d.directIoAvailable(), "cache.mode page-cache: every I/O through the page cache");
        ByteBuffer raw = ByteBuffer.allocateDirect(2 * 65536).alignedSlice(4096);
        ByteBuf src = Unpooled.wrappedBuffer(raw).clear();
        src.writeBytes(pattern(65536, 9));
        assertEquals(IoStatus.OK, write(4096, src, false));
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(65536);
        try {
            assertArrayEquals(pattern(65536, 9), read(4096, 65536, dst));
        } finally {
            dst.release();
        }
    }

    @Test
    void fuaWriteAndFlushSucceed() throws InterruptedException {
        assertEquals(IoStatus.OK, write(0, Unpooled.wrappedBuffer(pattern(4096, 3)), true));
        Completion c = new Completion();
        d.flush(c);
        assertEquals(IoStatus.OK, c.await());
    }

    @Test
    void unmapPunchesAHoleThatReadsZeros() throws InterruptedException {
        write(0, Unpooled.wrappedBuffer(pattern(256 * 1024, 4)), false);
        assertTrue(d.isMapped(64 * 1024));
        Completion c = new Completion();
        d.unmap(64 * 1024, 64 * 1024, c);
        assertEquals(IoStatus.OK, c.await());
        assertArrayEquals(new byte[64 * 1024], read(64 * 1024, 64 * 1024, Unpooled.buffer(64 * 1024)));
        assertFalse(d.isMapped(64 * 1024), "punched range is a hole");
        assertTrue(d.isMapped(0));
        assertEquals(64 * 1024, d.nextMappingChange(0));
        assertEquals(128 * 1024, d.nextMappingChange(64 * 1024));
    }

    @Test
    void existingFileKeepsDataAndSizeMismatchIsRefused() throws Exception {
        write(4096, Unpooled.wrappedBuffer(pattern(512, 5)), true);
        d.close();
        d = FileBlockDevice.open(dir.resolve("disk.img"), SIZE, 512, io);
        assertArrayEquals(pattern(512, 5), read(4096, 512, Unpooled.buffer(512)));
        IOException e =
                assertThrows(IOException.class, () -> FileBlockDevice.open(dir.resolve("disk.img"), SIZE * 2, 512, io));
        assertTrue(e.getMessage().contains("configured size"), e.getMessage());
    }

    @Test
    void growsWhileOpenKeepingItsDataAndServesUpToTheNewEnd() throws Exception {
        byte[] last = pattern(4096, 6);
        assertEquals(IoStatus.OK, write(SIZE - 4096, Unpooled.wrappedBuffer(last), false));
        Completion refused = new Completion();
        d.write(SIZE, Unpooled.wrappedBuffer(pattern(512, 7)), false, refused);
        assertEquals(IoStatus.OUT_OF_RANGE, refused.await(), "past the end before the resize");

        d.resize(2 * SIZE / 512);

        assertEquals(2 * SIZE / 512, d.blockCount());
        assertEquals(2 * SIZE, Files.size(dir.resolve("disk.img")));
        assertFalse(d.isMapped(SIZE), "the new part is a hole");
        assertEquals(2 * SIZE, d.nextMappingChange(SIZE), "unmapped to the new end");
        assertArrayEquals(last, read(SIZE - 4096, 4096, Unpooled.buffer(4096)), "data before the old end kept");
        assertArrayEquals(new byte[4096], read(2 * SIZE - 4096, 4096, Unpooled.buffer(4096)), "new blocks read zeros");
        byte[] across = pattern(8192, 8);
        assertEquals(IoStatus.OK, write(SIZE - 4096, Unpooled.wrappedBuffer(across), true));
        assertArrayEquals(across, read(SIZE - 4096, 8192, Unpooled.buffer(8192)), "a write across the old end");
        Completion beyond = new Completion();
        d.read(2 * SIZE, 512, Unpooled.buffer(512), beyond);
        assertEquals(IoStatus.OUT_OF_RANGE, beyond.await(), "past the new end");

        d.close();
        d = FileBlockDevice.open(dir.resolve("disk.img"), 2 * SIZE, 512, io);
        assertArrayEquals(across, read(SIZE - 4096, 8192, Unpooled.buffer(8192)), "reopened at the new size");
    }

    @Test
    void neverShrinks() throws Exception {
        IllegalArgumentException same = assertThrows(IllegalArgumentException.class, () -> d.resize(SIZE / 512));
        assertTrue(same.getMessage().contains("devices only grow"), same.getMessage());
        assertThrows(IllegalArgumentException.class, () -> d.resize(SIZE / 512 - 1));
        assertEquals(SIZE, Files.size(dir.resolve("disk.img")));
        assertEquals(SIZE / 512, d.blockCount());
    }

    @Test
    void outOfRangeIsRefused() throws InterruptedException {
        Completion c = new Completion();
        d.read(SIZE, 512, Unpooled.buffer(512), c);
        assertEquals(IoStatus.OUT_OF_RANGE, c.await());
    }

    @Test
    void aSymbolicLinkIsNotFollowed() throws IOException {
        Path victim = dir.resolve("victim.img");
        Path link = Files.createSymbolicLink(dir.resolve("link.img"), victim);
        UnsafeFileException e =
                assertThrows(UnsafeFileException.class, () -> FileBlockDevice.open(link, SIZE, 512, io));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
        assertFalse(Files.exists(victim));
    }

    @Test
    void directChannelWhereverTheFileSystemHasODirect() throws IOException {
        Path probe = Files.createFile(dir.resolve("probe"));
        boolean supported;
        try (FileChannel c =
                FileChannel.open(probe, StandardOpenOption.READ, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            supported = true;
        } catch (IOException | UnsupportedOperationException e) {
            supported = false;
        }
        assertEquals(supported, d.directIoAvailable(), "O_DIRECT through the descriptor's /proc path as on the file");
    }
}
