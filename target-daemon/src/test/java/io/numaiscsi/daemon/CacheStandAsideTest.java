package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.backstore.FileBlockDevice;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.BackingType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NUMA cache stands aside only for a memory store on a one-node machine, and never for a store made slow. */
class CacheStandAsideTest {
    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        io.shutdownNow();
    }

    @Test
    void ramOnOneNodeIsServedWithoutTheCache() {
        BlockDevice ram = new RamBlockDevice(1 << 20, 512);
        assertEquals(
                "its store is RAM on a machine with one NUMA node",
                CacheStandAside.reason(BackingType.RAM, ram, 1, false));
        assertNull(CacheStandAside.reason(BackingType.RAM, ram, 2, false), "two nodes: the cache serves the far one");
        assertNull(CacheStandAside.reason(BackingType.RAM, ram, 1, true), "inject-* stands for a slow store");
    }

    @Test
    void aFileOnTmpfsStandsAsideAndAFileOnDiskDoesNot() throws Exception {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(
                Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type()), "no tmpfs at /dev/shm");
        Assumptions.assumeTrue(!"tmpfs".equals(Files.getFileStore(dir).type()), "the build's temp dir is on tmpfs");
        Path onTmpfs = shm.resolve("numa-iscsi-unit-" + ProcessHandle.current().pid() + "-stand-aside.img");
        try (FileBlockDevice memory = FileBlockDevice.open(onTmpfs, 1 << 20, 512, io, false);
                FileBlockDevice disk = FileBlockDevice.open(dir.resolve("disk.img"), 1 << 20, 512, io, false)) {
            assertEquals(
                    "its file is on tmpfs (memory) on a machine with one NUMA node",
                    CacheStandAside.reason(BackingType.FILE, memory, 1, false));
            assertNull(CacheStandAside.reason(BackingType.FILE, memory, 2, false));
            assertNull(CacheStandAside.reason(BackingType.FILE, disk, 1, false));
        } finally {
            Files.deleteIfExists(onTmpfs);
        }
    }
}
