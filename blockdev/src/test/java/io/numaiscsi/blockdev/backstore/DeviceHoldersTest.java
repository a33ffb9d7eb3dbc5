package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceHoldersTest {
    @TempDir
    Path root;

    private DeviceHolders holders(String mounts) throws IOException {
        Path procMounts = root.resolve("mounts");
        Files.writeString(procMounts, mounts);
        Files.createDirectories(root.resolve("sys"));
        return new DeviceHolders(procMounts, root.resolve("sys"));
    }

    @Test
    void namesEveryMountPointOfTheDeviceUnescaped() throws IOException {
        Path dev = Files.createFile(root.resolve("loop7"));
        DeviceHolders h = holders("proc /proc proc rw 0 0\n"
                + dev + " /mnt/a\\040b ext4 rw 0 0\n"
                + "/dev/other /mnt/c xfs rw 0 0\n"
                + dev + " /srv/d ext4 rw 0 0\n");
        assertEquals("mounted on /mnt/a b, mounted on /srv/d", h.describe(dev, dev));
    }

    @Test
    void aSymbolicLinkInMountsIsTheDeviceItNames() throws IOException {
        Path dev = Files.createFile(root.resolve("dm-3"));
        Path link = Files.createSymbolicLink(root.resolve("vg-lv"), dev);
        assertEquals("mounted on /data", holders(link + " /data ext4 rw 0 0\n").describe(link, dev));
    }

    @Test
    void namesHoldersWithTheirDeviceMapperNames() throws IOException {
        Path dev = Files.createFile(root.resolve("sdq"));
        DeviceHolders h = holders("");
        Path held = Files.createDirectories(root.resolve("sys/sdq/holders"));
        Files.createDirectories(held.resolve("dm-4/dm"));
        Files.writeString(held.resolve("dm-4/dm/name"), "vg-thin\n");
        Files.createDirectories(held.resolve("md0"));
        assertEquals("held by dm-4 (vg-thin), held by md0", h.describe(dev, dev));
    }

    @Test
    void withoutMountsOrHoldersAnotherExclusiveOpenerIsTheCause() throws IOException {
        Path dev = Files.createFile(root.resolve("loop1"));
        assertEquals(
                "no mount or holder of it found, so another process has it open exclusively (a second daemon?)",
                holders("").describe(dev, dev));
    }

    @Test
    void unescapesOctalAndLeavesOtherBackslashes() {
        assertEquals("a b\tc\\d", DeviceHolders.unescape("a\\040b\\011c\\134d"));
        assertEquals("x\\9", DeviceHolders.unescape("x\\9"));
    }
}
