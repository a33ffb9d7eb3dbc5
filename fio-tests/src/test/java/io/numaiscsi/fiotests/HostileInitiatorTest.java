package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The holes a hostile initiator found (issue 11), each reproduced against the daemon as a process with its
 * default limits, from a second loopback address (127.0.0.2) while an honest initiator works from 127.0.0.1.
 * Each case records the daemon's resident memory and descriptors before, during and after in
 * {@code it-logs/hostile-initiators.txt}. Each case has its own daemon and mostly waits for one of its timeouts,
 * so the cases run side by side.
 */
@Tag("it")
class HostileInitiatorTest {
    private static final String ATTACKER = "127.0.0.2";
    private static final Duration HONEST_LIMIT = Duration.ofSeconds(10);
    private static final int LOGINS_PER_ADDRESS = 128; // the default of limits.logins-per-address
    private static final int READ_BLOCKS = 65_535; // 32 MiB of 512-byte blocks, the target's maximum transfer

    @BeforeEach
    void ownDaemon() {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
    }

    // ---- 1. connections that never log in ----------------------------------------------------------------

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anIdleFloodFromOneAddressLocksNobodyOut() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("HostileIdleFlood", 16L << 20)) {
            RawIo.ProcStats before = settle(daemon);
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < 1100; i++) {
                    Socket s = new Socket();
                    s.bind(new InetSocketAddress(ATTACKER, 0));
                    s.connect(
                            new InetSocketAddress(
                                    daemon.target().host(), daemon.target().port()),
                            2000);
                    flood.add(s);
                }
                Thread.sleep(1000);
                RawIo.ProcStats during = RawIo.ProcStats.of(daemon.pid());
                long honestMs = honestSessionWorks(daemon);
                long held = during.fds() - before.fds(); // one descriptor per connection the daemon keeps
                assertTrue(
                        held <= LOGINS_PER_ADDRESS + 4,
                        held + " idle connections from one address held, " + "limits.logins-per-address is "
                                + LOGINS_PER_ADDRESS);
                // limits.login-pdu-timeout (5 s) drops the rest; ticks are once a second
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(9);
                while (stillOpen(flood, 10) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(250);
                }
                int left = stillOpen(flood, 10);
                assertEquals(0, left, left + " idle connections still open 9 s after the flood" + daemon.logTail());
                RawIo.ProcStats after = settle(daemon);
                record(
                        "idle flood: 1,100 connections from " + ATTACKER + ", " + held
                                + " kept in login, all dropped by the login PDU timeout; honest login + ping "
                                + honestMs
                                + " ms during the flood",
                        before,
                        during,
                        after);
                assertTrue(after.fds() <= before.fds() + 4, "descriptors back: " + before + " -> " + after);
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aLoginSentOneBytePerSecondIsDropped() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("HostileSlowLogin", 16L << 20)) {
            RawIo.ProcStats before = settle(daemon);
            byte[] login = TestConnection.open(daemon.target())
                    .loginRequest(true, TestConnection.loginKeys(daemon.target()))
                    .toBytes();
            try (Socket s = new Socket()) {
                s.bind(new InetSocketAddress(ATTACKER, 0));
                s.connect(
                        new InetSocketAddress(
                                daemon.target().host(), daemon.target().port()),
                        2000);
                OutputStream out = s.getOutputStream();
                long start = System.nanoTime();
                long droppedAfterMs = -1;
                long honestMs = -1;
                for (int i = 0; i < login.length && i < 30; i++) {
                    try {
                        out.write(login[i]);
                        out.flush();
                    } catch (SocketException closed) {
                        droppedAfterMs = (System.nanoTime() - start) / 1_000_000;
                        break;
                    }
                    if (i == 2) {
                        honestMs = honestSessionWorks(daemon);
                    }
                    if (closedByPeer(s, 1000)) {
                        droppedAfterMs = (System.nanoTime() - start) / 1_000_000;
                        break;
                    }
                }
                assertTrue(
                        droppedAfterMs > 0 && droppedAfterMs < 9000,
                        "a trickling login must be dropped by limits.login-pdu-timeout (5 s); dropped after "
                                + droppedAfterMs + " ms" + daemon.logTail());
                RawIo.ProcStats after = settle(daemon);
                record(
                        "one byte per second in login: dropped after " + droppedAfterMs + " ms; honest login + ping "
                                + honestMs + " ms meanwhile",
                        before,
                        before,
                        after);
            }
        }
    }

    // ---- 3. memory a peer makes the daemon hold ----------------------------------------------------------

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void readsThatNobodyReceivesAreBounded() throws Exception {
        int metrics = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup =
                DaemonProcess.Setup.fileLun(1L << 30).daemonArgs("--metrics", "127.0.0.1:" + metrics);
        try (DaemonProcess daemon = DaemonProcess.start("HostileUnreadReads", setup)) {
            RawIo.ProcStats before = settle(daemon);
            TestConnection attacker = TestConnection.openFrom(daemon.target(), ATTACKER, 32 << 10);
            attacker.login();
            // 64 READs of 32 MiB (2 GiB), and never a byte read back: the daemon used to queue them all
            for (int i = 0; i < 64; i++) {
                attacker.send(attacker.scsiCommand(
                        0,
                        attacker.newItt(),
                        ScsiCdb.read10((long) (i % 31) * READ_BLOCKS, READ_BLOCKS),
                        READ_BLOCKS * 512,
                        TestConnection.READ_BIT,
                        true));
            }
            long peakRss = 0;
            double peakBuffers = 0;
            for (int i = 0; i < 16; i++) {
                Thread.sleep(250);
                peakRss = Math.max(peakRss, RawIo.ProcStats.of(daemon.pid()).rssKb());
                peakBuffers = Math.max(peakBuffers, PromText.fetch(metrics).sum("iscsi_buffer_budget_used_bytes"));
            }
            RawIo.ProcStats during = RawIo.ProcStats.of(daemon.pid());
            long honestMs = honestSessionWorks(daemon);
            long growthMb = (peakRss - before.rssKb()) / 1024;
            assertTrue(growthMb < 256, "resident memory grew " + growthMb + " MB for 2 GiB of reads nobody receives");
            // the connection reads no PDU while its output is stuck, so the NOP-In timeout (30 s) drops it
            waitForLog(daemon, "dropping connection from " + ATTACKER, Duration.ofSeconds(60));
            attacker.close();
            double buffersAfter =
                    PromText.settled(metrics, "iscsi_buffer_budget_used_bytes", 0, Duration.ofSeconds(10));
            assertEquals(0, buffersAfter, "every buffer charge is returned");
            RawIo.ProcStats after = settle(daemon);
            record(
                    String.format(
                            "64 x 32 MiB READs never received: RSS peak +%d MB, buffer budget peak %.0f MB; "
                                    + "dropped by the NOP-In timeout; honest login + ping %d ms meanwhile",
                            growthMb, peakBuffers / (1 << 20), honestMs),
                    before,
                    during,
                    after);
            assertTrue(after.rssKb() - before.rssKb() < 192 * 1024, "memory returns: " + before + " -> " + after);
            assertTrue(after.fds() <= before.fds() + 4, "descriptors back: " + before + " -> " + after);
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void writesWhoseDataNeverComesAreBounded() throws Exception {
        int metrics = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup =
                DaemonProcess.Setup.fileLun(1L << 30).daemonArgs("--metrics", "127.0.0.1:" + metrics);
        try (DaemonProcess daemon = DaemonProcess.start("HostileWriteHolders", setup)) {
            RawIo.ProcStats before = settle(daemon);
            double limit = PromText.fetch(metrics).sum("iscsi_buffer_budget_limit_bytes");
            List<TestConnection> holders = new ArrayList<>();
            try {
                // 100 sessions, each asking for 64 MiB of write buffers (its whole per-session budget), no data
                for (int i = 0; i < 100; i++) {
                    TestConnection c = TestConnection.openFrom(daemon.target(), ATTACKER, 0);
                    Map<String, String> keys = TestConnection.loginKeys(daemon.target());
                    keys.put("InitiatorName", "iqn.2026-11.io.numaiscsi:holder-" + i);
                    keys.put("InitialR2T", "Yes");
                    if (c.attemptLogin(keys, TestConnection.newIsidQualifier()).byteAt(36) != 0) {
                        throw new AssertionError("holder " + i + " could not log in" + daemon.logTail());
                    }
                    for (int w = 0; w < 2; w++) {
                        c.send(c.scsiCommand(
                                0,
                                c.newItt(),
                                ScsiCdb.write10((long) w * READ_BLOCKS, READ_BLOCKS),
                                READ_BLOCKS * 512,
                                TestConnection.WRITE_BIT,
                                true));
                    }
                    holders.add(c);
                }
                Thread.sleep(1000);
                double held = PromText.fetch(metrics).sum("iscsi_buffer_budget_used_bytes");
                RawIo.ProcStats during = RawIo.ProcStats.of(daemon.pid());
                long honestMs = honestWriteAndReadBack(daemon);
                assertTrue(
                        held <= limit + 100 * (1 << 20),
                        String.format("%.0f bytes of buffers held, budget %.0f", held, limit));
                // limits.data-out-timeout (20 s) drops every holder, and their budget comes back
                double after = PromText.settled(metrics, "iscsi_buffer_budget_used_bytes", 0, Duration.ofSeconds(40));
                assertEquals(0, after, "buffers of dropped holders are returned" + daemon.logTail());
                for (TestConnection c : holders) {
                    c.close();
                }
                RawIo.ProcStats afterStats = settle(daemon);
                record(
                        String.format(
                                "100 sessions x 2 x 32 MiB WRITEs without data: %.0f MB charged (budget %.0f MB), "
                                        + "dropped by the Data-Out timeout; honest 64K write + read back %d ms meanwhile",
                                held / (1 << 20), limit / (1 << 20), honestMs),
                        before,
                        during,
                        afterStats);
                assertTrue(afterStats.fds() <= before.fds() + 4, "descriptors back: " + before + " -> " + afterStats);
            } finally {
                for (TestConnection c : holders) {
                    c.close();
                }
            }
        }
    }

    // ---- 4. strings from the peer in the log -------------------------------------------------------------

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void peerStringsCannotForgeLogLines() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("HostileLogInjection", 16L << 20)) {
            String forged = "00:00:00.000 WARN  [main] TargetDaemon - FORGED";
            try (TestConnection c = TestConnection.openFrom(daemon.target(), ATTACKER, 0)) {
                Map<String, String> keys = TestConnection.loginKeys(daemon.target());
                keys.put("InitiatorName", "iqn.2026-11.evil:x\n" + forged + " \u001b[2J");
                c.attemptLogin(keys, TestConnection.newIsidQualifier());
            }
            try (TestConnection c = TestConnection.openFrom(daemon.target(), ATTACKER, 0)) {
                Map<String, String> keys = TestConnection.loginKeys(daemon.target());
                keys.put("TargetName", "iqn.2026-11.evil:t\r\n" + forged + "\u009b");
                c.attemptLogin(keys, TestConnection.newIsidQualifier());
            }
            Thread.sleep(500);
            String log = Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
            int escaped = 0;
            for (String line : log.split("\n")) {
                if (line.contains("FORGED")) {
                    assertFalse(line.startsWith(forged), "a forged line in the log: " + line);
                    escaped++;
                }
            }
            assertTrue(escaped >= 2, "both names were logged, escaped" + daemon.logTail());
            assertFalse(log.contains("\u001b"), "no raw escape character in the log");
            assertTrue(log.contains("\\x1b[2J"), "the escape is shown escaped");
            record(
                    "log injection: InitiatorName and TargetName with CR/LF, ESC and C1 logged as " + escaped
                            + " escaped lines",
                    null,
                    null,
                    null);
        }
    }

    // ---- 5. guessing CHAP secrets ----------------------------------------------------------------------

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void chapGuessesAreThrottledAndTheirLogLinesCounted() throws Exception {
        String iqn = "iqn.2026-11.io.numaiscsi:chap-guard";
        try (ConfiguredDaemon daemon = ConfiguredDaemon.start(
                "HostileChapGuessing",
                ""
                        + "targets:\n"
                        + "  - name: " + iqn + "\n"
                        + "    chap: {username: admin, secret: the-real-secret-42}\n"
                        + "    luns: [{id: 0, backing: ram, size: 16M}]\n")) {
            IscsiTarget target = daemon.target(iqn);
            AtomicInteger guesses = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> workers = new ArrayList<>();
            long start = System.nanoTime();
            for (int w = 0; w < 8; w++) {
                workers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        if (chapGuess(target, "iqn.2026-11.evil:guesser", "admin", "guess-" + guesses.get())) {
                            throw new AssertionError("a wrong secret was accepted");
                        }
                        guesses.incrementAndGet();
                    }
                    return null;
                }));
            }
            Thread.sleep(3000);
            long honestStart = System.nanoTime();
            Path honestLog = DaemonProcess.logDir().resolve("HostileChapGuessing-honest.log");
            ToolRun honest = ToolRun.run(
                    honestLog,
                    Duration.ofSeconds(30),
                    List.of(
                            "iscsi-inq",
                            "iscsi://admin%the-real-secret-42@" + target.host() + ":" + target.port() + "/" + iqn
                                    + "/0"));
            long honestMs = (System.nanoTime() - honestStart) / 1_000_000;
            Thread.sleep(7000);
            stop.set(true);
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
            for (Future<?> f : workers) {
                f.get();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double rate = guesses.get() / seconds;
            assertEquals(0, honest.exitCode(), "the honest CHAP login during the guessing\n" + honest.output());
            assertTrue(rate < 20, String.format("%.1f guesses/s from 8 connections at a time (was 2,525/s)", rate));
            int failureLines = daemon.logLines("rejected: authentication").size();
            assertTrue(failureLines <= 2 * 20 + 2, failureLines + " log lines for " + guesses.get() + " failures");
            record(
                    String.format(
                            "CHAP guessing from 8 connections at a time for %.0f s: %d guesses (%.1f/s, was "
                                    + "2,525/s), %d log lines; honest CHAP login (iscsi-inq) %d ms meanwhile",
                            seconds, guesses.get(), rate, failureLines, honestMs),
                    null,
                    null,
                    null);
        }
    }

    /** One wrong CHAP answer from the attacker's address; true only if the target accepted it. */
    private static boolean chapGuess(IscsiTarget target, String initiator, String user, String secret)
            throws IOException {
        try (TestConnection c = TestConnection.openFrom(target, ATTACKER, 0)) {
            int itt = c.newItt();
            int q = TestConnection.newIsidQualifier();
            Map<String, String> keys = new LinkedHashMap<>();
            keys.put("InitiatorName", initiator);
            keys.put("TargetName", target.iqn());
            keys.put("SessionType", "Normal");
            keys.put("AuthMethod", "CHAP");
            TestPdu rsp = securityStep(c, itt, q, true, keys);
            if (rsp == null) {
                return false;
            }
            rsp = securityStep(c, itt, q, false, Map.of("CHAP_A", "5"));
            if (rsp == null || !rsp.textKeys().containsKey("CHAP_C")) {
                return false;
            }
            int id = Integer.parseInt(rsp.textKeys().get("CHAP_I"));
            byte[] challenge =
                    HexFormat.of().parseHex(rsp.textKeys().get("CHAP_C").substring(2));
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((byte) id);
            md5.update(secret.getBytes(StandardCharsets.UTF_8));
            md5.update(challenge);
            rsp = securityStep(
                    c,
                    itt,
                    q,
                    true,
                    Map.of("CHAP_N", user, "CHAP_R", "0x" + HexFormat.of().formatHex(md5.digest())));
            return rsp != null;
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        } catch (SocketException | EOFException closed) {
            return false;
        }
    }

    /** A security-stage Login Request; the response if it succeeded (status 0), else null. */
    private static TestPdu securityStep(TestConnection c, int itt, int q, boolean transit, Map<String, String> keys)
            throws IOException {
        c.send(TestPdu.of(TestPdu.LOGIN_REQUEST)
                .immediate()
                .flags(transit ? TestPdu.TRANSIT | 1 : 0)
                .byteAt(8, 0x80)
                .byteAt(11, q >>> 16)
                .byteAt(12, q >>> 8)
                .byteAt(13, q)
                .itt(itt)
                .int32(24, 1)
                .text(keys));
        try {
            TestPdu rsp = c.readRaw(Duration.ofSeconds(15));
            return rsp != null && rsp.opcode() == TestPdu.LOGIN_RESPONSE && rsp.byteAt(36) == 0 ? rsp : null;
        } catch (SocketTimeoutException e) {
            return null;
        }
    }

    // ---- 8. names, statuses and log floods ---------------------------------------------------------------

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUpperCaseNameReinstatesInsteadOfOpeningAParallelSession() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("HostileNameCase", 16L << 20)) {
            int q = TestConnection.newIsidQualifier();
            Map<String, String> keys = TestConnection.loginKeys(daemon.target());
            try (TestConnection first = TestConnection.loggedIn(daemon.target(), keys, q)) {
                Map<String, String> upper = new LinkedHashMap<>(keys);
                upper.put("InitiatorName", keys.get("InitiatorName").toUpperCase(Locale.ROOT));
                try (TestConnection second = TestConnection.loggedIn(daemon.target(), upper, q)) {
                    assertEquals(
                            TestConnection.Outcome.CLOSED,
                            first.awaitRejectOrClose(Duration.ofSeconds(5)),
                            "the same initiator and ISID in upper case reinstates the session" + daemon.logTail());
                    second.ping();
                }
            }
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUnknownTargetAndAForbiddenOneLookAlike() throws Exception {
        DaemonProcess.Setup setup =
                DaemonProcess.Setup.fileLun(16L << 20).allow("iqn.2026-11.io.numaiscsi:someone-else");
        try (DaemonProcess daemon = DaemonProcess.start("HostileTargetProbe", setup)) {
            int forbidden = loginStatus(daemon.target(), daemon.target().iqn());
            int unknown = loginStatus(daemon.target(), "iqn.2026-11.io.numaiscsi:no-such-target");
            assertEquals(0x0202, forbidden, "not allowed: authorization failure");
            assertEquals(forbidden, unknown, "an unknown target answers as a forbidden one");
            String log = Files.readString(daemon.log());
            assertTrue(
                    log.contains("not in the allow list")
                            && log.contains("no target iqn.2026-11.io.numaiscsi:no-such-target"),
                    "the real reasons are in the target's log" + daemon.logTail());
        }
    }

    private static int loginStatus(IscsiTarget target, String targetName) throws IOException {
        try (TestConnection c = TestConnection.openFrom(target, ATTACKER, 0)) {
            Map<String, String> keys = TestConnection.loginKeys(target);
            keys.put("TargetName", targetName);
            TestPdu rsp = c.attemptLogin(keys, TestConnection.newIsidQualifier());
            assertNotNull(rsp, "a login response");
            return rsp.byteAt(36) << 8 | rsp.byteAt(37);
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void floodsOfRejectedPdusAndTaskManagementAreCountedNotLoggedOneByOne() throws Exception {
        try (DaemonProcess daemon = DaemonProcess.start("HostileLogFlood", 16L << 20)) {
            RawIo.ProcStats before = settle(daemon);
            try (TestConnection c = TestConnection.openFrom(daemon.target(), ATTACKER, 0)) {
                c.login();
                for (int i = 0; i < 500; i++) {
                    c.send(TestPdu.of(0x1c).flags(TestPdu.FINAL).itt(c.newItt()).int32(24, c.cmdSn()));
                }
                for (int i = 0; i < 500; i++) {
                    // ABORT TASK of a task that does not exist
                    c.send(c.taskManagement(1, 0, c.newItt(), 0x7000_0000 + i, c.cmdSn()));
                }
                c.ping();
            }
            long honestMs = honestSessionWorks(daemon);
            RawIo.ProcStats after = settle(daemon);
            String log = Files.readString(daemon.log());
            int rejectLines = count(log, "is not an initiator opcode");
            int tmfLines = count(log, "task management function");
            assertTrue(rejectLines <= 20, rejectLines + " log lines for 500 rejected PDUs");
            assertTrue(tmfLines <= 20, tmfLines + " log lines for 500 task management functions");
            record(
                    "500 rejected PDUs + 500 ABORT TASKs: " + rejectLines + " + " + tmfLines
                            + " log lines (the rest counted); honest login + ping " + honestMs + " ms",
                    before,
                    before,
                    after);
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------------

    /** An honest initiator from 127.0.0.1: logs in and pings within {@link #HONEST_LIMIT}; returns the ms it took. */
    private static long honestSessionWorks(DaemonProcess daemon) throws IOException {
        long start = System.nanoTime();
        try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
            c.ping();
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < HONEST_LIMIT.toMillis(), "the honest session took " + ms + " ms");
        return ms;
    }

    /** An honest 64 KiB write and read back beside the attack; returns the ms it took. */
    private static long honestWriteAndReadBack(DaemonProcess daemon) throws IOException {
        long start = System.nanoTime();
        byte[] data = ScsiCdb.pattern(65536, 7);
        try (RawBlockIo io = RawBlockIo.login(daemon.target())) {
            io.write(2048, data, false);
            assertTrue(Arrays.equals(data, io.read(2048, data.length / 512)), "read back what was written");
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < HONEST_LIMIT.toMillis(), "the honest write took " + ms + " ms");
        return ms;
    }

    private static int stillOpen(List<Socket> sockets, int waitMs) throws IOException {
        int open = 0;
        for (Socket s : sockets) {
            if (!s.isClosed() && !closedByPeer(s, waitMs)) {
                open++;
            }
        }
        return open;
    }

    /** True when the peer closed (EOF or reset); reads nothing the peer sent otherwise (login phase: nothing). */
    private static boolean closedByPeer(Socket s, int waitMs) throws IOException {
        s.setSoTimeout(Math.max(1, waitMs));
        try {
            InputStream in = s.getInputStream();
            if (in.read() < 0) {
                s.close();
                return true;
            }
            return false;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            s.close();
            return true;
        }
    }

    private static void waitForLog(DaemonProcess daemon, String text, Duration patience) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.readString(daemon.log()).contains(text)) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError(
                "no \"" + text + "\" in the log within " + patience.toSeconds() + " s" + daemon.logTail());
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    /** The daemon's figures once its threads are quiet (samples 1 s apart agree on descriptors). */
    private static RawIo.ProcStats settle(DaemonProcess daemon) throws Exception {
        RawIo.ProcStats last = RawIo.ProcStats.of(daemon.pid());
        for (int i = 0; i < 10; i++) {
            Thread.sleep(1000);
            RawIo.ProcStats now = RawIo.ProcStats.of(daemon.pid());
            if (now.fds() == last.fds()) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private static synchronized void record(
            String what, RawIo.ProcStats before, RawIo.ProcStats during, RawIo.ProcStats after) throws IOException {
        String line = what
                + (before == null
                        ? ""
                        : String.format(
                                " | RSS MB before/during/after %d/%d/%d, fds %d/%d/%d",
                                before.rssKb() / 1024,
                                during.rssKb() / 1024,
                                after.rssKb() / 1024,
                                before.fds(),
                                during.fds(),
                                after.fds()));
        System.out.println("[HostileInitiatorTest] " + line);
        Files.writeString(
                DaemonProcess.logDir().resolve("hostile-initiators.txt"),
                line + "\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
