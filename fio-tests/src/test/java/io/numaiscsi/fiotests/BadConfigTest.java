package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The daemon refuses bad input before serving anything: exit code 2 and a {@code FILE:LINE: key: problem}
 * line for a bad config file, exit code 2 for a bad {@code --portal}.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadConfigTest {

    static final int EXIT_CONFIG = 2;
    static final Duration LIMIT = Duration.ofSeconds(60);

    private Path dir;

    @BeforeAll
    void workDir() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        dir = ItDataDirs.newDir("BadConfigTest");
    }

    private String goodConfig(String extraIscsiLine) {
        return "daemon:\n"
                + "  data-dir: " + dir + "\n"
                + "iscsi:\n"
                + extraIscsiLine
                + "portals: [127.0.0.1:" + freePort() + "]\n"
                + "targets:\n"
                + "  - name: " + IscsiTarget.DEFAULT_IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: 1M}\n";
    }

    private static int freePort() {
        try {
            return DaemonProcess.freeLoopbackPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private ToolRun run(String name, List<String> args) throws Exception {
        return ToolRun.run(
                DaemonProcess.logDir().resolve("BadConfigTest-" + name + ".log"),
                LIMIT,
                DaemonProcess.command("BadConfigTest", args));
    }

    private ToolRun runWithConfig(String name, String yaml, String... moreArgs) throws Exception {
        Path config = dir.resolve(name + ".yaml");
        Files.writeString(config, yaml);
        List<String> args = new ArrayList<>(List.of("--config", config.toString()));
        args.addAll(List.of(moreArgs));
        return run(name, args);
    }

    @Test
    void unknownKeyOnLineFourExitsTwoNamingFileLineAndKey() throws Exception {
        String yaml = goodConfig("  nop-in-intervall: 1s\n");
        assertEquals("  nop-in-intervall: 1s", yaml.split("\n")[3], "the bad key is on line 4");
        ToolRun r = runWithConfig("unknown-key", yaml);
        assertFalse(r.timedOut(), r.describe(20));
        assertEquals(EXIT_CONFIG, r.exitCode(), r.describe(20));
        String expected = dir.resolve("unknown-key.yaml") + ":4: iscsi.nop-in-intervall: unknown key";
        assertTrue(r.output().contains(expected), "expected a line starting " + expected + "\n" + r.describe(20));
        assertTrue(r.output().contains("did you mean \"nop-in-interval\""), r.describe(20));
    }

    @Test
    void badValueNamesItsLineAndKey() throws Exception {
        ToolRun r = runWithConfig("bad-value", goodConfig("  queue-depth: 0\n"));
        assertEquals(EXIT_CONFIG, r.exitCode(), r.describe(20));
        String prefix = dir.resolve("bad-value.yaml") + ":4: iscsi.queue-depth: ";
        assertTrue(
                r.output().lines().anyMatch(l -> l.startsWith(prefix) && l.length() > prefix.length()),
                "expected a line " + prefix + "PROBLEM\n" + r.describe(20));
    }

    @Test
    void badPortalOptionExitsTwo() throws Exception {
        for (String portal : List.of("127.0.0.1:99999", "127.0.0.1:http")) {
            ToolRun r = runWithConfig("bad-portal", goodConfig(""), "--portal", portal);
            assertFalse(r.timedOut(), r.describe(20));
            assertEquals(EXIT_CONFIG, r.exitCode(), "--portal " + portal + "\n" + r.describe(20));
            assertTrue(r.output().contains("--portal " + portal + ": "), r.describe(20));
        }
    }
}
