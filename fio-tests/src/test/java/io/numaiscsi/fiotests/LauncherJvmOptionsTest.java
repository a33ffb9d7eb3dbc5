package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherJvmOptionsTest {

    @Test
    void readsTheDefaultOptionsLine(@TempDir Path dir) throws Exception {
        Path launcher = dir.resolve("launcher");
        Files.writeString(launcher, "#!/bin/sh\nDEFAULT_JAVA_OPTS=\"-XX:+UseZGC  -Xss1m\"\nexec java\n");
        assertEquals(List.of("-XX:+UseZGC", "-Xss1m"), LauncherJvmOptions.read(launcher));
        Files.writeString(launcher, "DEFAULT_JAVA_OPTS=\"\"\n");
        assertEquals(List.of(), LauncherJvmOptions.read(launcher));
        Files.writeString(launcher, "exec java\n");
        assertThrows(IllegalStateException.class, () -> LauncherJvmOptions.read(launcher));
    }

    @Test
    void theDebianPackageLauncherGivesTheSameOptions() {
        assertEquals(
                LauncherJvmOptions.DEFAULTS,
                LauncherJvmOptions.read(Path.of("..", "packaging", "src", "deb", "sbin", "numa-iscsi-target")));
    }
}
