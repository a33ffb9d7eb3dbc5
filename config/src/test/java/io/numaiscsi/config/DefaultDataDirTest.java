package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DefaultDataDirTest {

    @Test
    void rootGetsTheServiceDirectory() {
        assertEquals(Path.of("/var/lib/numa-iscsi-target"), DefaultDataDir.of(true, "/home/u/.data", "/root"));
    }

    @Test
    void otherUsersGetTheirXdgDataHome() {
        assertEquals(Path.of("/home/u/.data/numa-iscsi-target"), DefaultDataDir.of(false, "/home/u/.data/", "/home/u"));
    }

    @Test
    void withoutAnAbsoluteXdgDataHomeTheSpecsDefault() {
        Path expected = Path.of("/home/u/.local/share/numa-iscsi-target");
        assertEquals(expected, DefaultDataDir.of(false, null, "/home/u"));
        assertEquals(expected, DefaultDataDir.of(false, "", "/home/u"));
        assertEquals(expected, DefaultDataDir.of(false, "relative/dir", "/home/u"));
    }
}
