package io.numaiscsi.blockdev.backstore;

import io.numaiscsi.blockdev.MappingResources;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * A backing file's LBA mapping resources: used is the space the file system has allocated to the file (fstat's
 * st_blocks, 512-byte units), free is what the file system would still give this process (statvfs f_bavail, through
 * {@link FileStore#getUsableSpace}), which every other file on it shares.
 */
final class FileAllocation implements MappingResources {
    /** sizeof(struct stat) on x86-64 (144) and aarch64 (128), with room to spare. */
    static final int STAT_SIZE = 256;
    /** st_blocks lies at byte 64 in both the x86-64 and the generic (aarch64) struct stat. */
    private static final int ST_BLOCKS_OFFSET = 64;

    private final LibC libc;
    private final int fd;
    private final FileStore store;
    /** The device was closed: its descriptor may now be another file's. */
    private final BooleanSupplier closed;

    private FileAllocation(LibC libc, int fd, FileStore store, BooleanSupplier closed) {
        this.libc = libc;
        this.fd = fd;
        this.store = store;
        this.closed = closed;
    }

    /** The file's resources, or null where st_blocks cannot be read (no libc, an architecture of another layout). */
    static FileAllocation of(Path file, LibC libc, int fd, BooleanSupplier closed) throws IOException {
        String arch = System.getProperty("os.arch");
        if (libc == null || fd < 0 || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            return null;
        }
        return new FileAllocation(libc, fd, Files.getFileStore(file), closed);
    }

    @Override
    public long usedBytes() throws IOException {
        byte[] stat = new byte[STAT_SIZE];
        if (closed.getAsBoolean() || libc.fstat(fd, stat) != 0) {
            throw new IOException("fstat failed");
        }
        return ByteBuffer.wrap(stat).order(ByteOrder.nativeOrder()).getLong(ST_BLOCKS_OFFSET) * 512;
    }

    @Override
    public long freeBytes() throws IOException {
        return store.getUsableSpace();
    }

    @Override
    public boolean freeShared() {
        return true;
    }
}
