package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --check-config}: the loader's verdict and the secrecy check, exit codes, and nothing created. */
class ConfigCheckTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int check(String yaml, String mode) throws Exception {
        Path f = Files.writeString(dir.resolve("target.yaml"), yaml);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return ConfigCheck.run(f, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    private String config(String extra) {
        return extra + "daemon: {data-dir: " + dir.resolve("not-yet") + "}\n"
                + "targets:\n"
                + "  - name: iqn.2026-11.io.numaiscsi:d\n"
                + "    luns: [{id: 0, path: lun0.img, size: 1M}, {id: 1, backing: ram, size: 1M}]\n";
    }

    @Test
    void aGoodFileIsOkAndNothingIsCreated() throws Exception {
        assertEquals(0, check(config(""), "rw-r--r--"));
        assertEquals(dir.resolve("target.yaml") + ": ok (1 targets, 2 LUNs)\n", out.toString());
        assertEquals("", err.toString());
        assertFalse(Files.exists(dir.resolve("not-yet")), "the data directory is not created");
    }

    @Test
    void aBadFileExitsTwoNamingLineAndKey() throws Exception {
        assertEquals(
                Main.EXIT_CONFIG, check(config("").replace("size: 1M}, {id: 1", "size: 1X}, {id: 1"), "rw-------"));
        assertTrue(
                err.toString().startsWith(dir.resolve("target.yaml") + ":4: targets[0].luns[0].size: \"1X\""),
                err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void secretsReadableByOthersAreAWarningOrARefusalAsConfigured() throws Exception {
        String chap = "discovery-chap: {username: d, secret: discovery-secret-16}\n";
        assertEquals(0, check(config(chap), "rw-r--r--"));
        assertTrue(
                err.toString().startsWith("warning: " + dir.resolve("target.yaml") + ": holds CHAP secrets"),
                err.toString());
        assertTrue(out.toString().endsWith(": ok (1 targets, 2 LUNs)\n"), out.toString());

        String refuse = config(chap).replace("daemon: {", "daemon: {secret-file-check: refuse, ");
        assertEquals(Main.EXIT_CONFIG, check(refuse, "rw-r--r--"));
        assertTrue(err.toString().contains("(daemon.secret-file-check: refuse)"), err.toString());
    }
}
