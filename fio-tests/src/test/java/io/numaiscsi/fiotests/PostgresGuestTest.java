package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PostgreSQL 15 (the guest's Debian package; fsync, full_page_writes and synchronous_commit on, as
 * initdb leaves them) on a file system on the daemon's LUN, through the kernel initiator in the qemu
 * guest, and power cuts: per write policy of the NUMA cache, a series of boots of
 * {@code vm/guest/postgres.sh}, as {@link WiredTigerGuestTest}. The first boot makes the file system,
 * runs initdb and {@code pgbench -i}; every boot but the last runs pgbench (TPC-B plus one row per
 * transaction in a ledger table, tagged with the boot and {@code :client_id}) until the host kills the
 * daemon (SIGKILL) and the guest cuts its own power; the host starts the daemon again and the next boot
 * mounts the file system, starts PostgreSQL (its WAL recovery) and checks: for every client of every
 * earlier boot, ledger rows at least the transactions pgbench's {@code -l} log has as committed (the log
 * is written line by line to the host over 9p: {@code src/test/c/linebuf.c}, built here, makes pgbench's
 * log line buffered), at most one more (a commit whose answer the cut took); TPC-B's invariant (the sums
 * of account, teller and branch balances and of the history's deltas are equal, history rows = ledger
 * rows); {@code pg_amcheck --install-missing --heapallindexed --parent-check} clean.
 * <p>
 * CI: one power cut, write-back only (write-through runs in the long form). Long form (README,
 * "Databases on the LUN"): {@code -Dit.pg.kills=5 -Dit.pg.seconds=20 -Dit.pg.policies=write-through,write-back}
 * (checkpoint_timeout is 30 s, so most boots cut power after a checkpoint began); also
 * {@code it.pg.fs} (xfs or ext4), {@code it.pg.scale} (pgbench -i scale, 1 = 100,000 accounts),
 * {@code it.pg.clients} (4), {@code it.pg.seconds} (pgbench runs this long plus up to as much again at
 * random before the kill; 6 in CI, 20 in the long form).
 */
@Tag("it")
class PostgresGuestTest {

    static final long LUN_BYTES = 1L << 30;
    static final Duration BOOT_LIMIT = Duration.ofMinutes(15);
    static final int KILLS = Integer.getInteger("it.pg.kills", 1);
    static final int SCALE = Integer.getInteger("it.pg.scale", 1);
    static final int CLIENTS = Integer.getInteger("it.pg.clients", 4);
    static final String FS = System.getProperty("it.pg.fs", "xfs");
    static final int SECONDS = Integer.getInteger("it.pg.seconds", 6);
    static final Pattern CHECK = Pattern.compile("pg-check: boot (\\d+): (\\d+) logged, (\\d+) present, (\\d+) lost, "
            + "(\\d+) extra, (\\d+) over, invariant (\\w+), amcheck (\\S+), recovery (\\d+) s");

    private static Path linebuf;

    @BeforeAll
    static void buildShim() throws Exception {
        Assumptions.assumeTrue(
                System.getProperty("it.external.url", "").isBlank(), "kills and restarts its own daemon");
        VmRun.image();
        Path src = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("src/test/c/linebuf.c");
        linebuf = DaemonProcess.logDir().resolve("linebuf.so");
        Files.createDirectories(linebuf.getParent());
        ToolRun cc = ToolRun.run(
                DaemonProcess.logDir().resolve("linebuf-gcc.log"),
                Duration.ofMinutes(2),
                List.of("gcc", "-O2", "-Wall", "-shared", "-fPIC", "-o", linebuf.toString(), src.toString(), "-ldl"));
        if (cc.exitCode() != 0 || !Files.isRegularFile(linebuf)) {
            fail("cannot build the pgbench log shim (needs gcc, bin/run-tests installs build-essential):\n"
                    + cc.describe(20));
        }
    }

    /**
     * Per client, the transactions a pgbench {@code -l} log has as committed: complete lines
     * ("client_id transaction_no time script_no time_epoch time_us ...") whose time is a number (PostgreSQL 15
     * writes "failed" there for a transaction that failed). A last line without its newline is left out.
     */
    static Map<Integer, Long> committedPerClient(String log) {
        Map<Integer, Long> perClient = new TreeMap<>();
        int end = log.lastIndexOf('\n');
        if (end < 0) {
            return perClient;
        }
        for (String line : log.substring(0, end).split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length >= 6 && f[0].matches("\\d+") && f[2].matches("\\d+")) {
                perClient.merge(Integer.parseInt(f[0]), 1L, Long::sum);
            }
        }
        return perClient;
    }

    /** The write policies to run: write-back, or the ones -Dit.pg.policies names (comma-separated). */
    static Stream<String> policies() {
        return PowerCutSeries.policies("it.pg.policies");
    }

    /** What one policy's series found. */
    record Totals(
            int kills,
            long logged,
            long checked,
            long lost,
            long extraAtLastCheck,
            long over,
            int invariantBad,
            int amcheckFailed,
            List<Integer> recoverySeconds) {}

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void powerCutsLoseNoCommittedTransaction(String writePolicy) throws Exception {
        assertTrue(KILLS >= 1, "-Dit.pg.kills must be 1 or more: " + KILLS);
        String name = "PostgresGuestTest-" + writePolicy;
        DaemonProcess.Setup setup = PowerCutSeries.daemon(LUN_BYTES, writePolicy);
        Path history = PowerCutSeries.emptyFile(DaemonProcess.logDir().resolve(name + "-history.txt"));
        Random random = new Random(KILLS * 31L + SCALE);
        long logged = 0;
        long checked = 0;
        long lost = 0;
        long extra = 0;
        long over = 0;
        int invariantBad = 0;
        int amcheckFailed = 0;
        int kills = 0;
        List<Integer> recovery = new ArrayList<>();
        try (RestartableDaemon daemon = RestartableDaemon.start("Postgres-" + writePolicy, setup)) {
            for (int boot = 0; boot <= KILLS; boot++) {
                String phase = boot == 0 ? "first" : boot == KILLS ? "last" : "next";
                int seconds = SECONDS + random.nextInt(SECONDS + 1);
                Map<String, String> env = Map.of(
                        "IQN",
                        daemon.target().iqn(),
                        "PHASE",
                        phase,
                        "BOOT",
                        Integer.toString(boot),
                        "FS",
                        FS,
                        "SCALE",
                        Integer.toString(SCALE),
                        "CLIENTS",
                        Integer.toString(CLIENTS),
                        "SECONDS",
                        Integer.toString(seconds));
                boolean[] killed = {false};
                VmRun run = VmRun.run(
                        name + "-" + boot,
                        daemon.target().port(),
                        "postgres.sh",
                        env,
                        BOOT_LIMIT,
                        request -> {
                            if (!request.equals("kill-daemon")) {
                                return "error: unknown request " + request;
                            }
                            killed[0] = true;
                            return "ok: daemon killed (SIGKILL), exit code " + daemon.kill();
                        },
                        runDir -> {
                            Files.copy(linebuf, runDir.resolve("linebuf.so"));
                            Files.copy(history, runDir.resolve("history.txt"));
                        });
                String context = "\nboot " + boot + " (" + phase + ", " + seconds + " s of pgbench)\n" + run.describe()
                        + "\n" + daemon.logTail();
                List<String> lines = new ArrayList<>();
                for (Map.Entry<Integer, Long> e : pgbenchLog(run).entrySet()) {
                    lines.add(boot + " " + e.getKey() + " " + e.getValue());
                    logged += e.getValue();
                }
                Files.write(history, lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                if (boot > 0) {
                    Matcher m = CHECK.matcher(
                            Files.exists(run.out("check.txt")) ? Files.readString(run.out("check.txt")) : "");
                    assertTrue(m.find(), "no pg-check line" + context);
                    checked += Long.parseLong(m.group(2));
                    lost += Long.parseLong(m.group(4));
                    extra = Long.parseLong(m.group(5));
                    over += Long.parseLong(m.group(6));
                    invariantBad += m.group(7).equals("ok") ? 0 : 1;
                    amcheckFailed += m.group(8).equals("clean") ? 0 : 1;
                    recovery.add(Integer.parseInt(m.group(9)));
                }
                if (killed[0]) {
                    kills++;
                    daemon.startAgain();
                }
                assertTrue(run.succeeded(), "guest test postgres.sh" + context);
                assertEquals(!phase.equals("last"), killed[0], "the daemon was killed in this boot" + context);
            }
            daemon.assertAlive();
        }
        Totals t = new Totals(kills, logged, checked, lost, extra, over, invariantBad, amcheckFailed, recovery);
        String line = String.format(
                "%s: %s on %s, scale %d, %d clients: %d power cuts, %d transactions logged committed, "
                        + "%d checked (all checks), %d lost, %d committed not logged (last check), %d clients over by more "
                        + "than one, invariant bad %d, amcheck failed %d of %d, recovery %s s%n",
                name,
                FS,
                writePolicy,
                SCALE,
                CLIENTS,
                t.kills(),
                t.logged(),
                t.checked(),
                t.lost(),
                t.extraAtLastCheck(),
                t.over(),
                t.invariantBad(),
                t.amcheckFailed(),
                recovery.size(),
                t.recoverySeconds());
        System.out.print(line);
        Files.writeString(
                DaemonProcess.logDir().resolve("postgres-crash.txt"),
                line,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        assertEquals(KILLS, t.kills(), line);
        assertEquals(0, t.lost() + t.over() + t.invariantBad() + t.amcheckFailed(), line);
    }

    /** The committed transactions per client of the boot's pgbench -l log(s), none if pgbench did not run. */
    private static Map<Integer, Long> pgbenchLog(VmRun run) throws IOException {
        Map<Integer, Long> perClient = new TreeMap<>();
        try (Stream<Path> files = Files.list(run.out("."))) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("pgbench_log."))
                    .toList()) {
                committedPerClient(Files.readString(f, StandardCharsets.ISO_8859_1))
                        .forEach((client, n) -> perClient.merge(client, n, Long::sum));
            }
        }
        return perClient;
    }
}
