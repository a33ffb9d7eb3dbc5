package io.numaiscsi.daemon.cluster;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link VersionedObject} that the daemons on one host share through a directory (tmpfs, e.g. {@code /dev/shm/...}):
 * {@code NAME.data} holds the version and the bytes (replaced by rename, so a reader sees one whole state);
 * {@code NAME.version} is an 8-byte word every daemon maps into memory, written last by a replace, so another daemon's
 * {@link #knownVersion} is a memory load that sees the change as soon as the replace returns; {@code NAME.lock} is
 * held (fcntl lock, across processes; a monitor within this one) while a replace compares and writes.
 */
public final class LocalFileObject implements VersionedObject {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /** One monitor per lock file in this process: fcntl locks do not exclude threads of the same process. */
    private static final ConcurrentHashMap<Path, Object> MONITORS = new ConcurrentHashMap<>();

    private final Path data;
    private final Path lock;
    private final MappedByteBuffer version;

    /** Opens (creating if absent) object {@code name} in {@code directory}, which must exist. */
    public LocalFileObject(Path directory, String name) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new NoSuchFileException(
                    directory.toString(), null, "the shared reservations directory does not exist");
        }
        this.data = directory.resolve(name + ".data");
        this.lock = directory.resolve(name + ".lock");
        try (FileChannel c = FileChannel.open(
                directory.resolve(name + ".version"),
                StandardOpenOption.CREATE,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            if (c.size() < Long.BYTES) {
                c.write(ByteBuffer.allocate(Long.BYTES), 0); // version 0, native order either way
            }
            version = c.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
        }
    }

    @Override
    public Contents read() throws IOException {
        byte[] all;
        try {
            all = Files.readAllBytes(data);
        } catch (NoSuchFileException e) {
            return new Contents(0, new byte[0]);
        }
        if (all.length < Long.BYTES) {
            throw new IOException(data + ": " + all.length + " bytes, shorter than its version header");
        }
        return new Contents(ByteBuffer.wrap(all).getLong(), Arrays.copyOfRange(all, Long.BYTES, all.length));
    }

    @Override
    @SuppressWarnings("try") // the file lock is held for the block, never used in it
    public Replaced replace(long expectedVersion, byte[] bytes, boolean abortsTasks) throws IOException {
        synchronized (MONITORS.computeIfAbsent(lock, k -> new Object())) {
            try (FileChannel c = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock held = c.lock()) {
                long current = read().version();
                if (current != expectedVersion) {
                    return Replaced.at(-1);
                }
                long next = current + 1;
                Path temp = data.resolveSibling(data.getFileName() + ".tmp");
                ByteBuffer out = ByteBuffer.allocate(Long.BYTES + bytes.length)
                        .putLong(next)
                        .put(bytes)
                        .flip();
                try (FileChannel t = FileChannel.open(
                        temp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    while (out.hasRemaining()) {
                        t.write(out);
                    }
                    t.force(true);
                }
                Files.move(temp, data, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                LONGS.setRelease(version, 0, next); // last: a peer that sees it reads the new data
                return Replaced.at(next);
            }
        }
    }

    @Override
    public long knownVersion() {
        return (long) LONGS.getAcquire(version, 0);
    }

    @Override
    public String toString() {
        return "shared object " + data;
    }
}
