package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a block device (a disk, a zvol, an LVM volume, a loop device) as a LUN's store ({@code backing: block}): held
 * exclusively while the LUN serves ({@link DeviceNode}), its logical and physical block sizes and its size read from
 * the device. Flush and FUA are fdatasync on the device; unmap zeroes the range in the kernel (deallocating where the
 * device can), so a deallocated block reads as zeros as the LUN reports (LBPRZ); GET LBA STATUS reports every block
 * mapped, since a device does not tell which are.
 */
public final class DeviceBacking {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceBacking.class);

    private DeviceBacking() {}

    /**
     * Opens {@code device} for a LUN of {@code sizeBytes} (0: the whole device) in blocks of {@code blockSize} (0: the
     * device's logical block size).
     *
     * @throws IOException not a block device, in use, not accessible, or a size or block size the device cannot serve
     *     (the message names the configuration field)
     */
    public static FileBlockDevice open(
            Path device, long sizeBytes, int blockSize, Executor ioExecutor, boolean directIo) throws IOException {
        return open(device, sizeBytes, blockSize, ioExecutor, directIo, BackingAccess.READ_WRITE);
    }

    /** As {@link #open(Path, long, int, Executor, boolean)}, opened O_RDONLY when {@code access} is read-only. */
    public static FileBlockDevice open(
            Path device, long sizeBytes, int blockSize, Executor ioExecutor, boolean directIo, BackingAccess access)
            throws IOException {
        DeviceNode node = DeviceNode.open(device, access);
        try {
            DeviceGeometry g = node.geometry();
            int lunBlock = g.blockSize(device, blockSize);
            long lunSize = g.lunSize(device, sizeBytes, lunBlock);
            int physical = g.reportedPhysicalBlockSize(lunBlock);
            FileBlockDevice store = overDevice(
                    device,
                    node.handle(),
                    node.libc(),
                    node.fd(),
                    lunSize,
                    lunBlock,
                    physical,
                    ioExecutor,
                    directIo,
                    access);
            LOG.info(
                    "{}: block device of {} bytes, logical block {}, physical block {}; serving {} bytes in {}-byte blocks"
                            + " (physical {}), held exclusively{}; {}{}",
                    device,
                    g.sizeBytes(),
                    g.logicalBlockSize(),
                    g.physicalBlockSize(),
                    lunSize,
                    lunBlock,
                    physical,
                    access.writable() ? "" : ", read-only",
                    zeroing(device),
                    store.directIoAvailable() ? "" : "; no O_DIRECT: all I/O through the page cache");
            return store;
        } catch (IOException | RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * A store over a block device {@link DeviceBacking} opened and checked ({@code handle} is its descriptor's path):
     * it reports {@code physicalBlockSize} and cannot be resized. O_DIRECT requests are aligned to the block size or
     * the alignment Java's channel asks, whichever is larger.
     */
    private static FileBlockDevice overDevice(
            Path device,
            Path handle,
            LibC libc,
            int fd,
            long sizeBytes,
            int blockSize,
            int physicalBlockSize,
            Executor ioExecutor,
            boolean directIo,
            BackingAccess access)
            throws IOException {
        Objects.requireNonNull(ioExecutor, "ioExecutor");
        FileChannel buffered = FileChannel.open(handle, FileChannelIo.channelOptions(access));
        FileChannel direct = directIo ? FileChannelIo.openDirect(device, handle, access) : null;
        int alignment = Math.max(blockSize, FileChannelIo.fileSystemBlockSize(handle));
        BackingHandles handles = new BackingHandles(access, alignment, buffered, direct, libc, fd);
        return new FileBlockDevice(device, sizeBytes, blockSize, physicalBlockSize, true, handles, ioExecutor);
    }

    /** How unmap will zero, from the queue limits in sysfs (for the log only). */
    private static String zeroing(Path device) {
        Path queue = Path.of(
                "/sys/class/block", DeviceHolders.realPath(device).getFileName().toString(), "queue");
        long writeZeroes = number(queue.resolve("write_zeroes_max_bytes"));
        long discard = number(queue.resolve("discard_max_bytes"));
        String how = writeZeroes > 0
                ? "unmap zeroes with WRITE ZEROES offloaded to the device"
                : "unmap zeroes by writing zeros (the device has no write-zeroes offload)";
        return how + (discard > 0 ? ", which may deallocate (discard supported)" : "");
    }

    private static long number(Path file) {
        try {
            return Long.parseLong(
                    Files.readString(file, StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
