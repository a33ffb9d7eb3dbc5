package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Block I/O over a raw {@link TestConnection} for the fault and load tests: WRITE(10) with immediate data or R2T-solicited
 * Data-Out, FUA on request; READ(10); Logout; and the daemon's /proc figures (file descriptors, threads, RSS).
 */
final class RawIo {
    static final int BLOCK = 512;
    static final int LOGOUT_REQUEST = 0x06;
    static final int LOGOUT_RESPONSE = 0x26;
    static final int FUA = 0x08;

    private RawIo() {}

    /** WRITE(10) of {@code data} at {@code lba}; the status. Immediate data when the session allows it, else per R2T. */
    static ScsiResult write(TestConnection c, int lun, long lba, byte[] data, boolean fua, Duration limit)
            throws IOException {
        byte[] cdb = ScsiCdb.write10(lba, data.length / BLOCK);
        if (fua) {
            cdb[1] |= FUA;
        }
        return write(c, lun, cdb, data, limit);
    }

    /** The WRITE {@code cdb} (any block size) with {@code data}; the status. */
    static ScsiResult write(TestConnection c, int lun, byte[] cdb, byte[] data, Duration limit) throws IOException {
        int itt = c.newItt();
        boolean immediate = "Yes".equals(c.negotiated().getOrDefault("ImmediateData", "Yes"))
                && data.length <= Math.min(8192, c.targetMaxRecvDataSegmentLength());
        TestPdu cmd = c.scsiCommand(lun, itt, cdb, data.length, TestConnection.WRITE_BIT, true);
        if (immediate) {
            cmd.data(data);
        }
        c.send(cmd);
        if (immediate) {
            return c.awaitStatus(itt, limit);
        }
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            TestPdu p = readFor(c, itt, deadline);
            if (p.opcode() == TestPdu.R2T) {
                answerR2t(c, lun, p, data, 0, Integer.MAX_VALUE);
                continue;
            }
            if (p.opcode() == TestPdu.SCSI_RESPONSE) {
                byte[] seg = p.data();
                byte[] sense = new byte[0];
                if (seg.length >= 2) {
                    int senseLength = (seg[0] & 0xff) << 8 | (seg[1] & 0xff);
                    sense = Arrays.copyOfRange(seg, 2, 2 + Math.min(senseLength, seg.length - 2));
                }
                return new ScsiResult(p.byteAt(3), p.byteAt(2), new byte[0], sense, p, List.of(p), List.of());
            }
            fail("unexpected PDU for the WRITE itt=0x" + Integer.toHexString(itt) + ": " + p + "\ntrace: " + c.trace());
        }
    }

    /**
     * Sends the Data-Out one R2T asks for, in PDUs of at most the target's MaxRecvDataSegmentLength, but stops after
     * {@code maxBytes} (a disconnect test then closes the socket mid-burst).
     */
    static int answerR2t(TestConnection c, int lun, TestPdu r2t, byte[] all, int dataSnStart, int maxBytes)
            throws IOException {
        int offset = r2t.int32(40);
        int end = offset + r2t.int32(44);
        int pdu = Math.min(c.targetMaxRecvDataSegmentLength(), 65536);
        int dataSn = dataSnStart;
        int sent = 0;
        while (offset < end && sent < maxBytes) {
            int len = Math.min(pdu, end - offset);
            c.send(c.dataOut(
                    lun,
                    r2t.itt(),
                    r2t.int32(20),
                    dataSn++,
                    offset,
                    Arrays.copyOfRange(all, offset, offset + len),
                    offset + len == end));
            offset += len;
            sent += len;
        }
        return sent;
    }

    /**
     * The next PDU of task {@code itt} (others are skipped); fails on close or at the deadline. Reads in slices of at
     * most a second: {@link TestConnection#read} restarts its wait after answering a keepalive NOP-In, so one long read
     * would never time out on a connection the target pings.
     */
    static TestPdu readFor(TestConnection c, int itt, long deadline) throws IOException {
        while (true) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                fail("nothing for itt=0x" + Integer.toHexString(itt) + " in time\ntrace: " + tail(c.trace()));
            }
            TestPdu p;
            try {
                p = c.read(Duration.ofMillis(Math.min(left, 1000)));
            } catch (SocketTimeoutException e) {
                continue;
            }
            assertNotNull(
                    p,
                    "connection closed while waiting for itt=0x" + Integer.toHexString(itt) + "\ntrace: " + c.trace());
            if (p.itt() == itt) {
                return p;
            }
        }
    }

    /** The last lines of a connection trace, for failure messages. */
    static String tail(List<String> trace) {
        return String.join("\n", trace.subList(Math.max(0, trace.size() - 40), trace.size()));
    }

    static ScsiResult read(TestConnection c, int lun, long lba, int blocks, Duration limit) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, ScsiCdb.read10(lba, blocks), blocks * BLOCK, TestConnection.READ_BIT, true));
        return c.awaitStatus(itt, limit);
    }

    /** One command sent on a connection; its status. */
    interface Command {
        ScsiResult run() throws IOException;
    }

    /** A fresh session may first hear of a restart or reset (a unit attention); the command is then sent again. */
    static ScsiResult pastUnitAttention(Command command) throws IOException {
        ScsiResult r = command.run();
        for (int i = 0;
                i < 3 && r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == ScsiResult.UNIT_ATTENTION;
                i++) {
            r = command.run();
        }
        return r;
    }

    /** TEST UNIT READY, retried once past a unit attention (a LUN reset or a restart leaves one). */
    static ScsiResult testUnitReady(TestConnection c, int lun, Duration limit) throws IOException {
        ScsiResult r = null;
        for (int i = 0; i < 3; i++) {
            int itt = c.newItt();
            c.send(c.scsiCommand(lun, itt, ScsiCdb.testUnitReady(), 0, 0, true));
            r = c.awaitStatus(itt, limit);
            if (r.status() != ScsiResult.CHECK_CONDITION || r.senseKey() != ScsiResult.UNIT_ATTENTION) {
                return r;
            }
        }
        return r;
    }

    /** Logout (close the session, RFC 7143 11.14); true when the target answered with a Logout Response. */
    static boolean logout(TestConnection c, Duration limit) throws IOException {
        int itt = c.newItt();
        c.send(TestPdu.of(LOGOUT_REQUEST)
                .immediate()
                .flags(TestPdu.FINAL)
                .itt(itt)
                .int32(24, c.cmdSn())
                .int32(28, c.expStatSn()));
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            TestPdu p;
            try {
                p = c.read(Duration.ofMillis(Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            } catch (SocketTimeoutException e) {
                return false;
            }
            if (p == null) {
                return false;
            }
            if (p.opcode() == LOGOUT_RESPONSE && p.itt() == itt) {
                return p.byteAt(2) == 0;
            }
        }
        return false;
    }

    /** What /proc says about a process: open file descriptors, threads, resident memory. */
    record ProcStats(long fds, long threads, long rssKb) {
        static ProcStats of(long pid) throws IOException {
            Path proc = Path.of("/proc", Long.toString(pid));
            long fds;
            try (Stream<Path> s = Files.list(proc.resolve("fd"))) {
                fds = s.count();
            }
            String status = Files.readString(proc.resolve("status"));
            return new ProcStats(fds, field(status, "Threads"), field(status, "VmRSS"));
        }

        /** The names of the process's threads (/proc/PID/task/N/comm, truncated by the kernel to 15 characters). */
        static List<String> threadNames(long pid) throws IOException {
            List<String> names = new ArrayList<>();
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path t : tasks.toList()) {
                    try {
                        names.add(Files.readString(t.resolve("comm")).strip());
                    } catch (IOException gone) {
                        // the thread ended meanwhile
                    }
                }
            }
            Collections.sort(names);
            return names;
        }

        private static long field(String status, String name) {
            Matcher m = Pattern.compile("^" + name + ":\\s+(\\d+)", Pattern.MULTILINE)
                    .matcher(status);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }

        @Override
        public String toString() {
            return "fds=" + fds + " threads=" + threads + " rss=" + rssKb + "kB";
        }
    }

    /** The value of one unlabelled gauge from the daemon's Prometheus endpoint, or -1. */
    static double metric(int metricsPort, String name) throws IOException, InterruptedException {
        String body = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile("^" + name + "(\\{[^}]*})? ([0-9.E+-]+)$", Pattern.MULTILINE)
                .matcher(body);
        return m.find() ? Double.parseDouble(m.group(2)) : -1;
    }
}
