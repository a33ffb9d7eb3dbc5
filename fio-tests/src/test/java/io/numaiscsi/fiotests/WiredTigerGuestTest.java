package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * WiredTiger (MongoDB's storage engine) with journaling on a file system on the daemon's LUN, through the
 * kernel initiator in the qemu guest, and power cuts: per write policy of the NUMA cache, a series of
 * boots of {@code vm/guest/wiredtiger.sh}. The first loads the table; every boot but the last runs a YCSB
 * mix until the host kills the daemon (SIGKILL) and the guest cuts its own power; the host starts the
 * daemon again and the next boot mounts the file system, opens WiredTiger (its recovery) and checks
 * every record whose commit returned, as the driver logged it to the host, against what is there
 * ({@code wtload check}: nothing lost, the last committed value, {@code WT_SESSION::verify} clean).
 * The driver, {@code src/test/c/wtload.c}, is compiled here against libwiredtiger-dev and run in the guest.
 * CI: one kill, write-back only; {@code -Dit.wt.kills=5} and the other {@code it.wt.*} properties make the long
 * form (README, "Databases on the LUN").
 */
@Tag("it")
class WiredTigerGuestTest {

    static final long LUN_BYTES = 1L << 30;
    static final Duration BOOT_LIMIT = Duration.ofMinutes(10);
    static final int KILLS = Integer.getInteger("it.wt.kills", 1);
    static final int RECORDS = Integer.getInteger("it.wt.records", 10_000);
    static final String MIX = System.getProperty("it.wt.mix", "A");
    static final String FS = System.getProperty("it.wt.fs", "xfs");
    /** The workload runs this long, plus up to as much again at random, before the kill. */
    static final int SECONDS = Integer.getInteger("it.wt.seconds", 10);

    static final Pattern CHECK = Pattern.compile(
            "wtload-check: (\\d+) records, (\\d+) committed, (\\d+) lost, (\\d+) wrong, (\\d+) bad, verify (\\w+)");

    private static Path wtload;

    @BeforeAll
    static void buildDriver() throws Exception {
        Assumptions.assumeTrue(
                System.getProperty("it.external.url", "").isBlank(), "kills and restarts its own daemon");
        VmRun.image();
        Path src = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("src/test/c/wtload.c");
        wtload = DaemonProcess.logDir().resolve("wtload");
        Files.createDirectories(wtload.getParent());
        ToolRun cc = ToolRun.run(
                DaemonProcess.logDir().resolve("wtload-gcc.log"),
                Duration.ofMinutes(2),
                List.of("gcc", "-O2", "-Wall", "-o", wtload.toString(), src.toString(), "-lwiredtiger", "-lm"));
        if (cc.exitCode() != 0 || !Files.isExecutable(wtload)) {
            fail("cannot build the WiredTiger driver (needs gcc and libwiredtiger-dev, bin/run-tests installs them):\n"
                    + cc.describe(20));
        }
    }

    /** What one policy's series found, summed over its checks. */
    record Totals(
            int kills,
            long updatesCommitted,
            long checkedCommitted,
            long lost,
            long wrong,
            long bad,
            int verifyFailed) {}

    /** The updates whose commit returned: "C key version" lines right after their "W key version". */
    static long updatesCommitted(List<String> commitLog) {
        long n = 0;
        String asked = null;
        for (String line : commitLog) {
            if (line.startsWith("W ")) {
                asked = line.substring(2);
            } else if (asked != null && line.startsWith("C " + asked + " ")) {
                n++;
                asked = null;
            }
        }
        return n;
    }

    /**
     * The write policies to run: write-back in CI (the one whose acknowledged writes depend on the daemon's
     * SYNCHRONIZE CACHE handling), or the ones -Dit.wt.policies names (comma-separated; the long form runs both).
     */
    static Stream<String> policies() {
        return PowerCutSeries.policies("it.wt.policies");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void powerCutsLoseNoCommittedRecord(String writePolicy) throws Exception {
        assertTrue(KILLS >= 1, "-Dit.wt.kills must be 1 or more: " + KILLS);
        String name = "WiredTigerGuestTest-" + writePolicy;
        DaemonProcess.Setup setup = PowerCutSeries.daemon(LUN_BYTES, writePolicy);
        Path history = PowerCutSeries.emptyFile(DaemonProcess.logDir().resolve(name + "-commits.log"));
        Random random = new Random(KILLS * 31L + RECORDS);
        long commits = 0;
        long committed = 0;
        long lost = 0;
        long wrong = 0;
        long bad = 0;
        int verifyFailed = 0;
        int kills = 0;
        try (RestartableDaemon daemon = RestartableDaemon.start("WiredTiger-" + writePolicy, setup)) {
            for (int boot = 0; boot <= KILLS; boot++) {
                String phase = boot == 0 ? "first" : boot == KILLS ? "last" : "next";
                int seconds = SECONDS + random.nextInt(SECONDS + 1);
                Map<String, String> env = Map.of(
                        "IQN",
                        daemon.target().iqn(),
                        "PHASE",
                        phase,
                        "FS",
                        FS,
                        "RECORDS",
                        Integer.toString(RECORDS),
                        "MIX",
                        MIX,
                        "SECONDS",
                        Integer.toString(seconds),
                        "SEED",
                        Integer.toString(boot + 1));
                boolean[] killed = {false};
                VmRun run = VmRun.run(
                        name + "-" + boot,
                        daemon.target().port(),
                        "wiredtiger.sh",
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
                            Files.copy(wtload, runDir.resolve("wtload"));
                            Files.copy(history, runDir.resolve("history.log"));
                        });
                String context = "\nboot " + boot + " (" + phase + ", " + seconds + " s of mix " + MIX + ")\n"
                        + run.describe() + "\n" + daemon.logTail();
                Path commitLog = run.out("commits.log");
                List<String> lines = Files.exists(commitLog) ? Files.readAllLines(commitLog) : List.of();
                Files.write(history, lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                commits += updatesCommitted(lines);
                if (boot > 0) {
                    Matcher m = CHECK.matcher(
                            Files.exists(run.out("check.txt")) ? Files.readString(run.out("check.txt")) : "");
                    assertTrue(m.find(), "no wtload-check line" + context);
                    committed += Long.parseLong(m.group(2));
                    lost += Long.parseLong(m.group(3));
                    wrong += Long.parseLong(m.group(4));
                    bad += Long.parseLong(m.group(5));
                    verifyFailed += m.group(6).equals("OK") ? 0 : 1;
                }
                if (killed[0]) {
                    kills++;
                    daemon.startAgain();
                }
                assertTrue(run.succeeded(), "guest test wiredtiger.sh" + context);
                assertEquals(!phase.equals("last"), killed[0], "the daemon was killed in this boot" + context);
            }
            daemon.assertAlive();
        }
        Totals t = new Totals(kills, commits, committed, lost, wrong, bad, verifyFailed);
        String line = String.format(
                "%s: %s on %s, %d records, mix %s: %d power cuts, %d updates committed, "
                        + "%d committed records checked after the cuts, %d lost, %d wrong, %d bad, %d verify failures%n",
                name,
                FS,
                writePolicy,
                RECORDS,
                MIX,
                t.kills(),
                t.updatesCommitted(),
                t.checkedCommitted(),
                t.lost(),
                t.wrong(),
                t.bad(),
                t.verifyFailed());
        System.out.print(line);
        Files.writeString(
                DaemonProcess.logDir().resolve("wiredtiger-crash.txt"),
                line,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        assertEquals(KILLS, t.kills(), line);
        assertEquals(0, t.lost() + t.wrong() + t.bad() + t.verifyFailed(), line);
    }
}
