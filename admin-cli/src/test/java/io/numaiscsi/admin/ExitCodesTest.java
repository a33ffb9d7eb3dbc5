package io.numaiscsi.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exit codes: 1 the daemon refused (its words), 2 a usage error (which option, and where the help is), 3 no
 * daemon answers. Every failure is one plain line on stderr: no Java class name, no stack trace, nothing on stdout.
 */
class ExitCodesTest {
    @TempDir
    Path dir;

    private static void assertFails(Exit exit, String says, FakeDaemon.Run r) {
        assertEquals(exit.code, r.exit(), r.err());
        assertTrue(r.err().startsWith("numa-iscsi-admin: ") && r.err().contains(says), r.err());
        assertEquals("", r.out());
        assertFalse(r.err().matches("(?s).*(Exception|\\tat |java\\.|picocli\\.).*"), "plain words: " + r.err());
    }

    @Test
    void aRefusalExitsOneWithTheDaemonsMessage() throws IOException {
        String message = "lun.add params.lun: image: is required for backing: rbd (the RBD image's name in its pool)";
        try (FakeDaemon daemon = FakeDaemon.refusing(dir.resolve("a.sock"), -32602, message)) {
            FakeDaemon.Run r = daemon.cli("lun-add", "iqn.x:t", "--id", "1", "--backing", "rbd");
            assertFails(Exit.REFUSED, message, r);
        }
    }

    @Test
    void usageErrorsExitTwoNamingTheOptionAndTheHelp() throws IOException {
        try (FakeDaemon daemon = FakeDaemon.answering(dir.resolve("u.sock"), FakeDaemon.JSON.createObjectNode())) {
            assertFails(Exit.USAGE, "Missing required option: '--id=N'", daemon.cli("lun-add", "iqn.x:t"));
            assertFails(Exit.USAGE, "Missing required parameter: 'TSIH'", daemon.cli("session-logout"));
            assertFails(Exit.USAGE, "'one' is not a whole number", daemon.cli("lun-add", "t", "--id", "one"));
            assertFails(
                    Exit.USAGE,
                    "Unknown options: '--sise', '1G'",
                    daemon.cli("lun-add", "t", "--id", "1", "--sise", "1G"));
            assertFails(Exit.USAGE, "(see 'numa-iscsi-admin lun-add --help')", daemon.cli("lun-add", "t"));
            assertFails(Exit.USAGE, "mutually exclusive", daemon.cli("target-set", "t", "--alias", "a", "--no-alias"));
            assertFails(Exit.USAGE, "Missing required argument", daemon.cli("chap-set", "--none"));
            assertFails(Exit.USAGE, "lun-add", daemon.cli("lun-ad"));
            assertFails(Exit.USAGE, "is not KEY=VALUE", daemon.cli("target-create", "t", "--lun", "id=0,ram"));
            assertFails(
                    Exit.USAGE,
                    "--chap-secret-file: cannot read the secret from " + dir.resolve("none") + ": no such file",
                    daemon.cli(
                            "target-create",
                            "t",
                            "--lun",
                            "id=0,backing=ram,size=1G",
                            "--chap-user",
                            "u",
                            "--chap-secret-file",
                            dir.resolve("none").toString()));
            assertTrue(daemon.requests.isEmpty(), "nothing was sent: " + daemon.requests);
        }
    }

    @Test
    void noDaemonExitsThreeSayingWhatToDo() throws IOException {
        Path missing = dir.resolve("nobody.sock");
        FakeDaemon.Run r = FakeDaemon.run("--socket", missing.toString(), "status");
        assertFails(Exit.UNREACHABLE, "no daemon answers on " + missing, r);
        assertTrue(r.err().contains("start numa-iscsi-target, or name its socket with --socket"), r.err());

        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(stale)); // a daemon killed with -9 leaves its socket file behind
        }
        assertFails(
                Exit.UNREACHABLE,
                "no daemon answers on " + stale,
                FakeDaemon.run("status", "--socket", stale.toString()));
    }

    @Test
    void aSocketOfAnotherUserIsSaidToBeSo() {
        // as root (where the tests run) every socket opens; the words for a user the socket refuses:
        String message = Plain.unreachable(
                Path.of("/var/lib/numa-iscsi-target/admin.sock"), new SocketException("Permission denied"));
        assertEquals(
                "cannot open the admin socket /var/lib/numa-iscsi-target/admin.sock: permission denied (it is "
                        + "the daemon's user's only: run this as that user, e.g. with sudo)",
                message);
    }

    @Test
    void aDaemonThatHangsUpOrAnswersGarbageExitsThree() throws IOException {
        try (FakeDaemon daemon = FakeDaemon.with(dir.resolve("h.sock"), request -> null)) {
            assertFails(Exit.UNREACHABLE, "it closed the connection without an answer", daemon.cli("status"));
        }
        try (FakeDaemon daemon = FakeDaemon.with(dir.resolve("g.sock"), request -> FakeDaemon.JSON.createArrayNode())) {
            assertFails(Exit.UNREACHABLE, "the answer has neither a result nor an error", daemon.cli("status"));
        }
    }
}
