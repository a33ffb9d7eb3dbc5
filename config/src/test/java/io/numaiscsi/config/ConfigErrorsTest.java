package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad files: each case must name the exact line and key path an administrator has to fix. */
class ConfigErrorsTest {

    /** A valid file; each case replaces one numbered line (the replacement may span several lines). */
    private static final String BASE = String.join(
                    "\n",
                    /* 1 */ "daemon:",
                    /* 2 */ "  data-dir: /srv/iscsi",
                    /* 3 */ "  io-threads: 4",
                    /* 4 */ "portals:",
                    /* 5 */ "  - 127.0.0.1:3260",
                    /* 6 */ "iscsi:",
                    /* 7 */ "  max-burst-length: 1048576",
                    /* 8 */ "  first-burst-length: 262144",
                    /* 9 */ "targets:",
                    /* 10 */ "  - name: iqn.2026-11.io.numaiscsi:disk0",
                    /* 11 */ "    luns:",
                    /* 12 */ "      - id: 0",
                    /* 13 */ "        path: lun0.img",
                    /* 14 */ "        size: 1G",
                    /* 15 */ "      - id: 1",
                    /* 16 */ "        backing: ram",
                    /* 17 */ "        size: 64M")
            + "\n";

    private static String replace(int line, String text) {
        return replace(BASE, line, text);
    }

    private static String replace(String yaml, int line, String text) {
        List<String> lines = new ArrayList<>(Arrays.asList(yaml.split("\n")));
        lines.set(line - 1, text);
        return String.join("\n", lines) + "\n";
    }

    private static Arguments bad(String name, int line, String text, int errorLine, String keyPath, String problem) {
        return Arguments.of(name, replace(line, text), errorLine, keyPath, problem);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                bad(
                        "unknown key with typo",
                        3,
                        "  io-thread: 4",
                        3,
                        "daemon.io-thread",
                        "unknown key (did you mean \"io-threads\"?)"),
                bad(
                        "unknown key, nothing close",
                        3,
                        "  colour: blue",
                        3,
                        "daemon.colour",
                        "unknown key (known keys here: data-dir, io-threads, event-model, secret-file-check, backing-io, "
                                + "log-level, tcp-transport, event-spin, io-poll)"),
                bad(
                        "snake_case key",
                        7,
                        "  max_burst_length: 1048576",
                        7,
                        "iscsi.max_burst_length",
                        "unknown key (did you mean \"max-burst-length\"?)"),
                bad("unknown top-level key", 9, "target:", 9, "target", "unknown key (did you mean \"targets\"?)"),
                bad(
                        "wrong type: list for a number",
                        3,
                        "  io-threads: [4]",
                        3,
                        "daemon.io-threads",
                        "expected a single value, found a list"),
                bad(
                        "wrong type: word for a number",
                        3,
                        "  io-threads: four",
                        3,
                        "daemon.io-threads",
                        "\"four\" is not an integer"),
                bad(
                        "wrong type: not a boolean",
                        8,
                        "  first-burst-length: 262144\n  immediate-data: yes",
                        9,
                        "iscsi.immediate-data",
                        "\"yes\" is not true or false"),
                Arguments.of(
                        "wrong type: mapping for a list",
                        replace(replace(BASE, 4, "portals: {a: 1}"), 5, "# -"),
                        4,
                        "portals",
                        "expected a list, found a mapping (key: value lines)"),
                bad("out of range", 3, "  io-threads: 0", 3, "daemon.io-threads", "0 is out of range (1..256)"),
                bad(
                        "out of range LUN id",
                        15,
                        "      - id: 16384",
                        15,
                        "targets[0].luns[1].id",
                        "16384 is out of range (0..16383)"),
                bad(
                        "duplicate YAML key",
                        3,
                        "  io-threads: 4\n  io-threads: 5",
                        4,
                        "daemon.io-threads",
                        "duplicate key (first written at line 3)"),
                bad(
                        "duplicate target",
                        17,
                        "        size: 64M\n  - name: iqn.2026-11.io.numaiscsi:disk0\n"
                                + "    luns: [{id: 0, backing: ram, size: 1M}]",
                        18,
                        "targets[1].name",
                        "duplicate target name \"iqn.2026-11.io.numaiscsi:disk0\" (also targets[0].name at line 10)"),
                bad(
                        "duplicate LUN id",
                        15,
                        "      - id: 0",
                        15,
                        "targets[0].luns[1].id",
                        "duplicate LUN id 0 (also targets[0].luns[0].id at line 12)"),
                bad(
                        "bad IQN month",
                        10,
                        "  - name: iqn.2026-13.io.numaiscsi:disk0",
                        10,
                        "targets[0].name",
                        "\"iqn.2026-13.io.numaiscsi:disk0\": month 13 is not 01..12"),
                bad(
                        "IQN upper case",
                        10,
                        "  - name: iqn.2026-11.io.NumaIscsi:disk0",
                        10,
                        "targets[0].name",
                        "\"iqn.2026-11.io.NumaIscsi:disk0\" must be lower case (iSCSI names are case-normalized); "
                                + "write \"iqn.2026-11.io.numaiscsi:disk0\""),
                bad(
                        "not an iSCSI name",
                        10,
                        "  - name: disk0",
                        10,
                        "targets[0].name",
                        "\"disk0\" is not an iSCSI name (use iqn.YYYY-MM.reversed.domain[:identifier], "
                                + "eui. + 16 hex digits, or naa. + 16 or 32 hex digits)"),
                bad(
                        "short EUI",
                        10,
                        "  - name: eui.02004567A425678",
                        10,
                        "targets[0].name",
                        "\"eui.02004567A425678\" is not a valid eui. name (eui. must be followed by 16 hex digits)"),
                bad(
                        "bad size",
                        14,
                        "        size: 12X",
                        14,
                        "targets[0].luns[0].size",
                        "\"12X\" is not a size (use bytes or a K/M/G/T suffix)"),
                bad(
                        "size not a multiple of the block size",
                        14,
                        "        size: 1000",
                        14,
                        "targets[0].luns[0].size",
                        "1000 bytes is not a multiple of block-size 512"),
                bad(
                        "size not a multiple of 4096",
                        17,
                        "        size: 6K\n        block-size: 4096",
                        17,
                        "targets[0].luns[1].size",
                        "6144 bytes is not a multiple of block-size 4096"),
                bad(
                        "unsupported block size",
                        17,
                        "        size: 64M\n        block-size: 1024",
                        18,
                        "targets[0].luns[1].block-size",
                        "1024 is not a supported block-size (use 512 or 4096)"),
                bad(
                        "physical block not a power of two",
                        17,
                        "        size: 64M\n        physical-block-size: 3072",
                        18,
                        "targets[0].luns[1].physical-block-size",
                        "3072 is not a power of two"),
                bad(
                        "physical block smaller than the block",
                        17,
                        "        size: 64M\n        block-size: 4096\n        physical-block-size: 512",
                        19,
                        "targets[0].luns[1].physical-block-size",
                        "512 is smaller than block-size 4096 (a physical block holds whole logical blocks)"),
                bad(
                        "physical block too large",
                        17,
                        "        size: 64M\n        physical-block-size: 131072",
                        18,
                        "targets[0].luns[1].physical-block-size",
                        "131072 is out of range (512..65536)"),
                bad(
                        "soft threshold above 99%",
                        17,
                        "        size: 64M\n        soft-threshold: 100%",
                        18,
                        "targets[0].luns[1].soft-threshold",
                        "\"100%\" is not a percentage from 1% to 99% (e.g. 80%)"),
                bad(
                        "soft threshold not a number",
                        17,
                        "        size: 64M\n        soft-threshold: most",
                        18,
                        "targets[0].luns[1].soft-threshold",
                        "\"most\" is not a percentage from 1% to 99% (e.g. 80%)"),
                bad(
                        "soft threshold on a block device",
                        16,
                        "        backing: block\n        path: /dev/sdb\n        soft-threshold: 80%",
                        18,
                        "targets[0].luns[1].soft-threshold",
                        "is only used with backing: file or ram (a block LUN is"
                                + " fully provisioned: it has no thin provisioning threshold)"),
                bad(
                        "missing path for file backing",
                        13,
                        "        backing: file",
                        12,
                        "targets[0].luns[0].path",
                        "is required for backing: file"),
                bad("missing size", 14, "        block-size: 512", 12, "targets[0].luns[0].size", "is required"),
                bad(
                        "path with ram backing",
                        16,
                        "        backing: ram\n        path: ram.img",
                        17,
                        "targets[0].luns[1].path",
                        "is only used with backing: file or block (remove it for backing: ram)"),
                bad(
                        "unknown backing",
                        16,
                        "        backing: disk",
                        16,
                        "targets[0].luns[1].backing",
                        "\"disk\" is not a backing (use file, ram, block, rbd or null)"),
                bad(
                        "missing path for block backing",
                        16,
                        "        backing: block",
                        15,
                        "targets[0].luns[1].path",
                        "is required for backing: block (the device, e.g. /dev/sdb)"),
                bad(
                        "relative device path",
                        16,
                        "        backing: block\n        path: sdb",
                        17,
                        "targets[0].luns[1].path",
                        "\"sdb\" is not an absolute path: backing: block takes the device"
                                + " node, e.g. /dev/sdb, /dev/zvol/pool/vol or /dev/vg/lv"),
                Arguments.of(
                        "device size not a multiple of 512",
                        replace(
                                replace(BASE, 17, "        size: 1000"),
                                16,
                                "        backing: block\n        path: /dev/sdb"),
                        18,
                        "targets[0].luns[1].size",
                        "1000 bytes is not a multiple of block-size 512"),
                bad(
                        "unsupported device block size",
                        16,
                        "        backing: block\n        path: /dev/sdb\n        block-size: 2048",
                        18,
                        "targets[0].luns[1].block-size",
                        "2048 is not a supported block-size (use 512 or 4096)"),
                bad(
                        "two LUNs on one file",
                        16,
                        "        path: ./lun0.img",
                        16,
                        "targets[0].luns[1].path",
                        "/srv/iscsi/lun0.img is already the backing file of targets[0].luns[0].path"),
                bad(
                        "first burst above max burst",
                        8,
                        "  first-burst-length: 2097152",
                        8,
                        "iscsi.first-burst-length",
                        "2097152 is larger than max-burst-length 1048576"),
                Arguments.of(
                        "max burst below the default first burst",
                        replace(replace(BASE, 7, "  max-burst-length: 131072"), 8, "  queue-depth: 64"),
                        7,
                        "iscsi.max-burst-length",
                        "131072 is smaller than the default first-burst-length 262144 (set first-burst-length too)"),
                bad(
                        "bad digest",
                        8,
                        "  first-burst-length: 262144\n  header-digest: [CRC32, None]",
                        9,
                        "iscsi.header-digest[0]",
                        "\"CRC32\" is not a digest (use CRC32C or None)"),
                bad(
                        "bad duration",
                        8,
                        "  first-burst-length: 262144\n  nop-in-interval: 5",
                        9,
                        "iscsi.nop-in-interval",
                        "\"5\" is not a duration (use a number with us, ms, s, m or h, e.g. 5s; 0 disables)"),
                bad(
                        "duration below its range",
                        8,
                        "  first-burst-length: 262144\n  nop-in-interval: 50ms",
                        9,
                        "iscsi.nop-in-interval",
                        "50ms is out of range (0 or 100ms..1h)"),
                bad(
                        "zero timeout",
                        8,
                        "  first-burst-length: 262144\n  nop-in-timeout: 0",
                        9,
                        "iscsi.nop-in-timeout",
                        "0 is out of range (1s..1h)"),
                bad(
                        "unknown key inside a LUN",
                        14,
                        "        size: 1G\n        blocksize: 4096",
                        15,
                        "targets[0].luns[0].blocksize",
                        "unknown key (did you mean \"block-size\"?)"),
                Arguments.of(
                        "target written as a single value",
                        BASE.substring(0, BASE.indexOf("  - name:")) + "  - iqn.2026-11.io.numaiscsi:disk0\n",
                        10,
                        "targets[0]",
                        "expected a mapping (key: value lines), found a single value"),
                bad(
                        "serial with a control character",
                        14,
                        "        size: 1G\n        serial: \"a\\tb\"",
                        15,
                        "targets[0].luns[0].serial",
                        "\"a\tb\" must be printable ASCII (SPC-4 unit serial number)"),
                bad(
                        "bad portal port",
                        5,
                        "  - 127.0.0.1:99999",
                        5,
                        "portals[0]",
                        "portal \"127.0.0.1:99999\": port 99999 is out of range (1..65535)"),
                bad(
                        "unbracketed IPv6 portal",
                        5,
                        "  - \"::1:3260\"",
                        5,
                        "portals[0]",
                        "portal \"::1:3260\": write IPv6 addresses in brackets, e.g. [::1]:3260"),
                bad(
                        "duplicate portal",
                        5,
                        "  - 127.0.0.1:3260\n  - 127.0.0.1:3260",
                        6,
                        "portals[1]",
                        "duplicate portal 127.0.0.1:3260 (also portals[0] at line 5)"),
                bad(
                        "relative data-dir",
                        2,
                        "  data-dir: srv/iscsi",
                        2,
                        "daemon.data-dir",
                        "\"srv/iscsi\" must be an absolute path"),
                bad(
                        "ALL mixed with names",
                        10,
                        "  - name: iqn.2026-11.io.numaiscsi:disk0\n" + "    allow: [ALL, iqn.2026-11.io.host:a]",
                        11,
                        "targets[0].allow[0]",
                        "ALL allows any initiator; it cannot be combined with initiator names"),
                bad(
                        "bad initiator name",
                        10,
                        "  - name: iqn.2026-11.io.numaiscsi:disk0\n    allow: [host1]",
                        11,
                        "targets[0].allow[0]",
                        "\"host1\" is not an iSCSI name (use iqn.YYYY-MM.reversed.domain"
                                + "[:identifier], eui. + 16 hex digits, or naa. + 16 or 32 hex digits)"),
                Arguments.of(
                        "empty LUN list",
                        BASE.substring(0, BASE.indexOf("    luns:")) + "    luns: []\n",
                        11,
                        "targets[0].luns",
                        "needs at least one LUN"),
                bad(
                        "YAML alias",
                        17,
                        "        size: &s 64M\n  - name: iqn.2026-11.io.numaiscsi:disk1\n"
                                + "    luns: [{id: 0, backing: ram, size: *s}]",
                        19,
                        "targets[1].luns[0].size",
                        "YAML aliases (*s) are not supported; write the value out"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void badInputNamesLineAndKey(String name, String yaml, int line, String keyPath, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "test.yaml"));
        assertEquals(problem, e.problem(), e.getMessage());
        assertEquals(line, e.line(), e.getMessage());
        assertEquals(keyPath, e.keyPath(), e.getMessage());
        assertEquals("test.yaml:" + line + ": " + keyPath + ": " + problem, e.getMessage());
        assertEquals("test.yaml", e.source());
    }

    @Test
    void baseFileIsValid() throws ConfigException {
        assertEquals(
                2, ConfigLoader.parse(BASE, "test.yaml").targets().get(0).luns().size());
    }

    @Test
    void exampleMessageFromTheBrief() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse(replace(17, "        size: 12X"), "/etc/numa-iscsi-target.yaml"));
        assertEquals(
                "/etc/numa-iscsi-target.yaml:17: targets[0].luns[1].size: \"12X\" is not a size "
                        + "(use bytes or a K/M/G/T suffix)",
                e.getMessage());
    }

    @Test
    void missingTargetsSectionIsReportedAtTheDocument() {
        ConfigException e =
                assertThrows(ConfigException.class, () -> ConfigLoader.parse("daemon:\n  io-threads: 4\n", "t.yaml"));
        assertEquals("t.yaml:1: targets: is required", e.getMessage());
    }

    @Test
    void emptyDocumentNeedsTargets() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("# nothing\n", "t.yaml"));
        assertEquals("targets", e.keyPath());
        assertEquals("is required", e.problem());
    }

    @Test
    void emptyTargetListIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("targets: []\n", "t.yaml"));
        assertEquals("t.yaml:1: targets: needs at least one target", e.getMessage());
    }

    @Test
    void yamlSyntaxErrorReportsLineAndColumn() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> ConfigLoader.parse(replace(3, "  io-threads: 4 x: 5"), "t.yaml"));
        assertEquals(3, e.line(), e.getMessage());
        assertEquals(18, e.column(), e.getMessage());
        assertEquals("daemon.io-threads", e.keyPath(), e.getMessage());
        assertTrue(
                e.problem().startsWith("YAML syntax error at column 18: mapping values are not allowed here"),
                e.getMessage());
    }

    @Test
    void tabIndentationIsASyntaxErrorOnItsLine() {
        ConfigException e =
                assertThrows(ConfigException.class, () -> ConfigLoader.parse(replace(3, "\tio-threads: 4"), "t.yaml"));
        assertEquals(3, e.line(), e.getMessage());
        assertEquals(1, e.column(), e.getMessage());
        assertTrue(e.problem().contains("a tab"), e.getMessage());
    }

    @Test
    void unquotedIpv6PortalGetsAHint() {
        ConfigException e =
                assertThrows(ConfigException.class, () -> ConfigLoader.parse(replace(5, "  - [::1]:3260"), "t.yaml"));
        assertEquals(5, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains("quote IPv6 portals: \"[::1]:3260\""), e.getMessage());
    }

    @Test
    void secondDocumentIsRejected() {
        ConfigException e =
                assertThrows(ConfigException.class, () -> ConfigLoader.parse(BASE + "---\ndaemon: {}\n", "t.yaml"));
        assertEquals(19, e.line(), e.getMessage());
        assertTrue(e.problem().startsWith("only one YAML document is allowed"), e.getMessage());
    }
}
