package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is refused before any device is opened; the devices themselves are tested in fio-tests (BlockDeviceTest). */
class DeviceBackingTest {
    private static final Executor INLINE = Runnable::run;

    @TempDir
    Path dir;

    @Test
    void aRegularFileIsNotABlockDevice() throws IOException {
        Path file = Files.writeString(dir.resolve("disk.img"), "x");
        IOException e = assertThrows(IOException.class, () -> DeviceBacking.open(file, 0, 0, INLINE, true));
        assertEquals(file + " is a regular file, not a block device (use backing: file for a file)", e.getMessage());
    }

    @Test
    void aCharacterDeviceIsNotABlockDevice() {
        IOException e =
                assertThrows(IOException.class, () -> DeviceBacking.open(Path.of("/dev/null"), 0, 0, INLINE, true));
        assertEquals("/dev/null is a character device, not a block device", e.getMessage());
    }

    @Test
    void aMissingDeviceIsNamed() {
        Path missing = dir.resolve("sdz");
        IOException e = assertThrows(IOException.class, () -> DeviceBacking.open(missing, 0, 0, INLINE, true));
        assertEquals("block device " + missing + " does not exist", e.getMessage());
    }
}
