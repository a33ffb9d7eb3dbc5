package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DaemonProcessTest {

    @ParameterizedTest
    @CsvSource({"1073741824, 1G", "16777216, 16M", "4096, 4K", "1536, 1536", "3221225472, 3G"})
    void sizeLiteral(long bytes, String literal) {
        assertEquals(literal, DaemonProcess.sizeLiteral(bytes));
    }

    @Test
    void configServesDefaultTargetLunZeroOnLoopback() {
        String yaml = DaemonProcess.config(Path.of("/tmp/d"), 40001, 64L << 20);
        assertEquals(
                "daemon:\n"
                        + "  data-dir: /tmp/d\n"
                        + "portals: [127.0.0.1:40001]\n"
                        + "targets:\n"
                        + "  - name: iqn.2026-11.io.numaiscsi:disk0\n"
                        + "    luns:\n"
                        + "      - {id: 0, backing: file, path: lun0.img, size: 64M, block-size: 512}\n",
                yaml);
    }

    @Test
    void setupAddsIscsiKeysAllowListAndRamLun() {
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(16L << 20)
                .iscsi("nop-in-interval", "1s")
                .iscsi("header-digest", "[CRC32C, None]")
                .allow("iqn.2026-11.test:a")
                .ramLun(1, 8L << 20);
        assertEquals(
                "daemon:\n"
                        + "  data-dir: /tmp/d\n"
                        + "portals: [127.0.0.1:40001]\n"
                        + "iscsi:\n"
                        + "  nop-in-interval: 1s\n"
                        + "  header-digest: [CRC32C, None]\n"
                        + "targets:\n"
                        + "  - name: iqn.2026-11.io.numaiscsi:disk0\n"
                        + "    allow: [iqn.2026-11.test:a]\n"
                        + "    luns:\n"
                        + "      - {id: 0, backing: file, path: lun0.img, size: 16M, block-size: 512}\n"
                        + "      - {id: 1, backing: ram, size: 8M, block-size: 512}\n",
                DaemonProcess.config(Path.of("/tmp/d"), 40001, setup));
    }

    @Test
    void withUmaskExecsTheSameCommandUnderSh() throws Exception {
        List<String> cmd = DaemonProcess.withUmask("000", List.of("sh", "-c", "umask; echo \"$0|$1\"", "a b", "c"));
        assertEquals(
                List.of("sh", "-c", "umask 000 && exec \"$@\"", "sh", "sh", "-c", "umask; echo \"$0|$1\"", "a b", "c"),
                cmd);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertEquals("0000\na b|c\n", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals(0, p.waitFor());
    }

    @Test
    void freeLoopbackPortCanBeBound() throws Exception {
        int port = DaemonProcess.freeLoopbackPort();
        assertTrue(port > 0);
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(port, s.getLocalPort());
        }
    }
}
