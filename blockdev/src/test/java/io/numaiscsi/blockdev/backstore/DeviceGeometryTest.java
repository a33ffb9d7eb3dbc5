package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DeviceGeometryTest {
    private static final Path DEV = Path.of("/dev/sdx");
    /** A 512e disk: 512-byte logical blocks on 4 KiB physical ones. */
    private static final DeviceGeometry EMULATED = new DeviceGeometry(1L << 30, 512, 4096);

    private static final DeviceGeometry NATIVE_4K = new DeviceGeometry((1L << 30) + 4096, 4096, 4096);

    @Test
    void blockSizeDefaultsToTheDevicesLogicalBlock() throws IOException {
        assertEquals(512, EMULATED.blockSize(DEV, 0));
        assertEquals(4096, NATIVE_4K.blockSize(DEV, 0));
    }

    @Test
    void aLargerConfiguredBlockSizeIsTaken() throws IOException {
        assertEquals(4096, EMULATED.blockSize(DEV, 4096));
    }

    @Test
    void aBlockSizeBelowTheDevicesLogicalBlockIsRefusedNamingTheField() {
        IOException e = assertThrows(IOException.class, () -> NATIVE_4K.blockSize(DEV, 512));
        assertEquals(
                "block-size 512 is smaller than the logical block size of /dev/sdx (4096 bytes): the device cannot"
                        + " write a 512-byte block; use block-size: 4096 or leave block-size out",
                e.getMessage());
    }

    @Test
    void aLogicalBlockALunCannotHaveIsRefused() {
        assertEquals(
                "/dev/sdx has logical blocks of 2048 bytes, a LUN's are 512 or 4096 bytes: set block-size: 4096",
                assertThrows(IOException.class, () -> new DeviceGeometry(1L << 30, 2048, 2048).blockSize(DEV, 0))
                        .getMessage());
        assertThrows(IOException.class, () -> new DeviceGeometry(1L << 30, 8192, 8192).blockSize(DEV, 0));
    }

    @Test
    void sizeDefaultsToTheWholeDeviceInWholeBlocks() throws IOException {
        assertEquals(1L << 30, EMULATED.lunSize(DEV, 0, 512));
        assertEquals((1L << 30) + 4096, NATIVE_4K.lunSize(DEV, 0, 4096));
        assertEquals(4096, new DeviceGeometry(4096 + 512, 512, 512).lunSize(DEV, 0, 4096));
    }

    @Test
    void aConfiguredSizeLimitsTheLunAndMayNotExceedTheDevice() throws IOException {
        assertEquals(1L << 20, EMULATED.lunSize(DEV, 1L << 20, 512));
        assertEquals(1L << 30, EMULATED.lunSize(DEV, 1L << 30, 512));
        assertEquals(
                "size 2147483648 bytes is more than /dev/sdx holds (1073741824 bytes): leave size out to export all"
                        + " of it",
                assertThrows(IOException.class, () -> EMULATED.lunSize(DEV, 2L << 30, 512))
                        .getMessage());
        assertEquals(
                "size 1536 bytes is not a multiple of block-size 4096 (the block size of /dev/sdx)",
                assertThrows(IOException.class, () -> NATIVE_4K.lunSize(DEV, 1536, 4096))
                        .getMessage());
    }

    @Test
    void aDeviceSmallerThanOneBlockIsRefused() {
        assertThrows(IOException.class, () -> new DeviceGeometry(512, 512, 512).lunSize(DEV, 0, 4096));
    }

    @Test
    void physicalBlockIsTheDevicesWhenItIsAPowerOfTwoMultipleOfTheLunBlock() {
        assertEquals(4096, EMULATED.reportedPhysicalBlockSize(512));
        assertEquals(4096, EMULATED.reportedPhysicalBlockSize(4096));
        assertEquals(4096, new DeviceGeometry(1L << 30, 512, 512).reportedPhysicalBlockSize(4096));
        assertEquals(512, new DeviceGeometry(1L << 30, 512, 0).reportedPhysicalBlockSize(512));
        assertEquals(512, new DeviceGeometry(1L << 30, 512, 1536).reportedPhysicalBlockSize(512));
    }
}
