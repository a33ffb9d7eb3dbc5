package io.numaiscsi.blockdev.backstore;

import com.sun.nio.file.ExtendedOpenOption;
import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocking work of one {@link FileBlockDevice}, on an executor thread (ThreadPoolBackingIo, and unmap under
 * io_uring): reads and writes through the O_DIRECT channel when buffer, offset and length are aligned, else through the
 * buffered one; unmap as a punched hole (on a block device BLKZEROOUT), zeros written where neither works.
 */
final class FileChannelIo {
    private static final Logger LOG = LoggerFactory.getLogger(FileBlockDevice.class);
    private static final int ZERO_CHUNK = 1 << 20;

    private final FileBlockDevice device;
    private final Path file;
    private final FileChannel buffered;
    private final FileChannel direct;
    private final int alignment;
    private final LibC libc;
    private final int fd;
    private final boolean blockSpecial;
    private ByteBuffer zeros;

    FileChannelIo(
            FileBlockDevice device,
            Path file,
            FileChannel buffered,
            FileChannel direct,
            int alignment,
            LibC libc,
            int fd,
            boolean blockSpecial) {
        this.device = device;
        this.file = file;
        this.buffered = buffered;
        this.direct = direct;
        this.alignment = alignment;
        this.libc = libc;
        this.fd = fd;
        this.blockSpecial = blockSpecial;
    }

    static Set<OpenOption> channelOptions(BackingAccess access) {
        return access.writable()
                ? Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE)
                : Set.of(StandardOpenOption.READ);
    }

    static FileChannel openDirect(Path file, Path handle, BackingAccess access) {
        try {
            Set<OpenOption> options = new HashSet<>(channelOptions(access));
            options.add(ExtendedOpenOption.DIRECT);
            return FileChannel.open(handle, options);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.info("{}: O_DIRECT not available ({}); all I/O goes through the page cache", file, e.toString());
            return null;
        }
    }

    static int fileSystemBlockSize(Path file) {
        try {
            long b = Files.getFileStore(file).getBlockSize();
            return b > 0 && b <= (1 << 16) && Long.bitCount(b) == 1 ? (int) b : 4096;
        } catch (IOException | UnsupportedOperationException e) {
            return 4096;
        }
    }

    IoStatus perform(int op, long offset, long length, ByteBuf buf, boolean fua) {
        try {
            switch (op) {
                case IoRequest.READ -> {
                    doRead(offset, (int) length, buf);
                    return IoStatus.OK;
                }
                case IoRequest.WRITE -> {
                    doWrite(offset, buf);
                    if (fua) {
                        buffered.force(false);
                    }
                    return IoStatus.OK;
                }
                case IoRequest.FLUSH -> {
                    buffered.force(false);
                    return IoStatus.OK;
                }
                case IoRequest.UNMAP -> {
                    doUnmap(offset, length);
                    return IoStatus.OK;
                }
                case IoRequest.WRITE_ZEROES -> {
                    doWriteZeroes(offset, length);
                    return IoStatus.OK;
                }
                default -> throw new IllegalStateException("op " + op);
            }
        } catch (IOException e) {
            if (device.closed()) {
                return IoStatus.UNAVAILABLE;
            }
            String m = String.valueOf(e.getMessage());
            if (m.contains("No space left")) {
                return IoStatus.NO_SPACE;
            }
            LOG.warn("{}: I/O error at offset {} length {}: {}", file, offset, length, e.toString());
            return IoStatus.MEDIUM_ERROR;
        }
    }

    private boolean directOk(long offset, long length, ByteBuffer bb) {
        return direct != null
                && bb.isDirect()
                && offset % alignment == 0
                && length % alignment == 0
                && bb.alignmentOffset(bb.position(), alignment) == 0;
    }

    private void doRead(long offset, int length, ByteBuf dst) throws IOException {
        int wi = dst.writerIndex();
        if (dst.nioBufferCount() == 1) {
            ByteBuffer bb = dst.internalNioBuffer(wi, length);
            boolean odirect = directOk(offset, length, bb);
            readFully(odirect ? direct : buffered, bb, offset);
            if (!odirect) {
                device.touchedBuffered(dst, wi, length);
            }
        } else {
            ByteBuffer tmp = ByteBuffer.allocate(length);
            readFully(buffered, tmp, offset);
            tmp.flip();
            dst.setBytes(wi, tmp);
            device.touchedBuffered(dst, wi, length);
        }
        dst.writerIndex(wi + length);
    }

    private void readFully(FileChannel ch, ByteBuffer bb, long offset) throws IOException {
        long pos = offset;
        while (bb.hasRemaining()) {
            int n = ch.read(bb, pos);
            if (n < 0) {
                while (bb.hasRemaining()) {
                    bb.put((byte) 0); // beyond EOF of a file truncated behind our back: reads as zeros
                }
                return;
            }
            pos += n;
        }
    }

    private void doWrite(long offset, ByteBuf src) throws IOException {
        int length = src.readableBytes();
        ByteBuffer bb = src.nioBufferCount() == 1
                ? src.internalNioBuffer(src.readerIndex(), length)
                : src.nioBuffer(src.readerIndex(), length);
        boolean odirect = directOk(offset, length, bb);
        writeFully(odirect ? direct : buffered, bb, offset);
        if (!odirect) {
            device.touchedBuffered(src, src.readerIndex(), length);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer bb, long offset) throws IOException {
        long pos = offset;
        while (bb.hasRemaining()) {
            pos += ch.write(bb, pos);
        }
    }

    private void doUnmap(long offset, long length) throws IOException {
        if (fd >= 0 && libc.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, offset, length) == 0) {
            return;
        }
        // A device without write-zeroes-with-unmap (EOPNOTSUPP above): BLKZEROOUT offloads zeroing or lets the kernel
        // write the zeros. Never BLKDISCARD: a discarded range need not read back as zeros, and LBPRZ says it does.
        if (blockSpecial && libc.ioctl(fd, LibC.BLKZEROOUT, new long[] {offset, length}) == 0) {
            return;
        }
        writeZeroPattern(offset, length);
    }

    /** BLKZEROOUT keeps the range allocated (the kernel asks the device not to unmap); else zeros are written. */
    private void doWriteZeroes(long offset, long length) throws IOException {
        if (libc.ioctl(fd, LibC.BLKZEROOUT, new long[] {offset, length}) == 0) {
            return;
        }
        writeZeroPattern(offset, length);
    }

    private void writeZeroPattern(long offset, long length) throws IOException {
        ByteBuffer z = zeroBuffer();
        long pos = offset;
        long end = offset + length;
        while (pos < end) {
            ByteBuffer chunk = z.duplicate();
            chunk.limit((int) Math.min(ZERO_CHUNK, end - pos));
            writeFully(buffered, chunk, pos);
            pos += chunk.limit();
        }
    }

    private synchronized ByteBuffer zeroBuffer() {
        if (zeros == null) {
            zeros = ByteBuffer.allocateDirect(ZERO_CHUNK);
        }
        return zeros;
    }
}
