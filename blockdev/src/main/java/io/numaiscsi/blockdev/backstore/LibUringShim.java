package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import jnr.ffi.LibraryLoader;
import jnr.ffi.LibraryOption;
import jnr.ffi.Pointer;
import jnr.ffi.annotations.Out;

/**
 * The project's own C shim over liburing ({@code src/main/c/uring_shim.c}), bound with jnr-ffi. Every call returns a
 * count or -errno, so errno is never saved. Public only because jnr-ffi generates the implementation in another class
 * loader.
 */
public interface LibUringShim {
    String RESOURCE = "/native/linux-x86_64/libnumaiscsi-uring.so";
    String PATH_PROPERTY = "numaiscsi.uring.shim";
    int READ = 1;
    int WRITE = 2;
    int FDATASYNC = 3;
    /** The calls' shape this interface binds ({@code USHIM_ABI} in the C source). */
    int ABI = 3;

    /** The shim's {@code USHIM_ABI}. */
    int ushim_abi();

    /** A ring of {@code entries} submission slots, or null with {@code err[0]} = -errno. */
    Pointer ushim_ring_new(int entries, @Out int[] err);

    void ushim_ring_free(Pointer ring);

    /** {@code path} opened again with O_DIRECT, read-write or ({@code writable} 0) read-only: an fd or -errno. */
    int ushim_open_direct(String path, int writable);

    int ushim_close(int fd);

    /**
     * Queues one request for the next submit: 0, -EBUSY (submission queue full) or -EINVAL. {@code request} is
     * {@link #request(int, int)}: six arguments are passed in registers, a seventh would cost an allocation per call.
     */
    int ushim_queue(Pointer ring, long request, long address, int length, long offset, long userData);

    /** The op and the fd of one request as {@link #ushim_queue} takes them. */
    static long request(int op, int fd) {
        return ((long) op << 32) | (fd & 0xFFFF_FFFFL);
    }

    /** Submitted count or -errno. */
    int ushim_submit(Pointer ring);

    /** Up to {@code timeoutMillis} until a completion is ready (not consumed): 0, -ETIME or -EINTR. */
    int ushim_wait(Pointer ring, int timeoutMillis);

    /** Consumes up to {@code max} ready completions into {@code out} as (user_data, res) pairs of longs. */
    int ushim_reap(Pointer ring, Pointer out, int max);

    /**
     * The shim from {@code -Dnumaiscsi.uring.shim=/path}, else the copy built into this jar.
     *
     * @throws IOException naming why it cannot be had: the build had no liburing-dev, or the library does not load
     */
    static LibUringShim load() throws IOException {
        String path = System.getProperty(PATH_PROPERTY);
        if (path == null) {
            try (InputStream in = LibUringShim.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IOException(
                            "this build has no " + RESOURCE + " (liburing-dev was missing when it was built)");
                }
                Path tmp = Files.createTempFile("numaiscsi-uring", ".so");
                tmp.toFile().deleteOnExit();
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                path = tmp.toString();
            }
        }
        LibUringShim shim;
        try {
            shim = LibraryLoader.create(LibUringShim.class)
                    .option(LibraryOption.IgnoreError, true)
                    .failImmediately()
                    .load(path);
        } catch (RuntimeException | LinkageError e) {
            throw new IOException("cannot load the io_uring shim " + path + " (" + e + "); install liburing2", e);
        }
        int abi;
        try {
            abi = shim.ushim_abi();
        } catch (RuntimeException | LinkageError e) {
            abi = 1; // the first shim had no ushim_abi
        }
        if (abi != ABI) {
            String where = System.getProperty(PATH_PROPERTY) == null ? RESOURCE + " on the class path" : path;
            throw new IOException("the io_uring shim " + where + " is from another build (its calls have shape " + abi
                    + ", this build's " + ABI
                    + "): a stale copy in another jar or classes directory; rebuild from clean"
                    + " (mvn clean install)");
        }
        return shim;
    }
}
