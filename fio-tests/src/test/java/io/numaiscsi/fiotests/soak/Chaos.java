package io.numaiscsi.fiotests.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaiscsi.fiotests.SoakRawChaos;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chaos events, one at a time, drawn from a shuffled deck (every kind once before any repeats) so that a short run
 * still sees each kind. Each event disturbs the daemon of the LUNs under load and checks that the daemon reacted as
 * it should; an event whose check fails counts against the verdict. The events that speak raw PDUs are in
 * {@link SoakRawChaos}.
 */
final class Chaos {
    /** The kinds of event. */
    enum Kind {
        SESSION_LOGOUT_LOGIN,
        KILL_INITIATOR,
        TASK_MANAGEMENT,
        LUN_ADD_RESIZE_REMOVE,
        SIGHUP_RELOAD,
        CHAP_CHANGE,
        HOSTILE_LOGINS,
        SLOW_READER
    }

    static final String OTHER_ADDRESS = "127.0.0.2";
    /**
     * The slow reader's address: the daemon holds back login answers to an address with recent failed logins (the
     * hostile burst's), and the slow reader must log in.
     */
    static final String SLOW_READER_ADDRESS = "127.0.0.3";

    static final Duration SLOW_READER_HOLD = Duration.ofSeconds(35);
    static final Duration SLOW_READER_DROP = Duration.ofSeconds(80);
    private static final Pattern RELOAD_DONE = Pattern.compile("reload: (\\d+) of (\\d+) change\\(s\\) applied");

    private final SoakDaemon wt;
    private final AdminCli admin;
    private final SoakConfig config;
    private final List<LunWorker> workers;
    private final SoakRecorder recorder;
    private final Random random;
    private final Path out;
    private final List<Kind> deck = new ArrayList<>();
    /** The CHAP secret soak-chap takes now: the file's after a start or reload, else the last one set. */
    private String chapSecret = SoakConfig.CHAP_SECRET_FILE;

    private int chapChanges;
    private int lunsAdded;

    Chaos(
            SoakDaemon wt,
            AdminCli admin,
            SoakConfig config,
            List<LunWorker> workers,
            SoakRecorder recorder,
            Random random,
            Path out) {
        this.wt = wt;
        this.admin = admin;
        this.config = config;
        this.workers = List.copyOf(workers);
        this.recorder = recorder;
        this.random = random;
        this.out = out;
    }

    /** The next event of the deck, run and recorded. */
    void next() {
        if (deck.isEmpty()) {
            deck.addAll(List.of(Kind.values()));
            Collections.shuffle(deck, random);
        }
        run(deck.remove(0));
    }

    void run(Kind kind) {
        Instant start = Instant.now();
        boolean ok;
        String detail;
        try {
            detail = switch (kind) {
                case SESSION_LOGOUT_LOGIN -> sessionLogoutLogin();
                case KILL_INITIATOR -> killInitiator();
                case TASK_MANAGEMENT -> SoakRawChaos.taskManagement("127.0.0.1", wt.port(), SoakConfig.CHAOS_TARGET, 0);
                case LUN_ADD_RESIZE_REMOVE -> lunAddResizeRemove();
                case SIGHUP_RELOAD -> sighupReload();
                case CHAP_CHANGE -> chapChange();
                case HOSTILE_LOGINS ->
                    SoakRawChaos.hostileBurst(
                            "127.0.0.1",
                            wt.port(),
                            SoakConfig.CHAOS_TARGET,
                            OTHER_ADDRESS,
                            150,
                            Duration.ofSeconds(20));
                case SLOW_READER ->
                    SoakRawChaos.slowReader(
                            "127.0.0.1",
                            wt.port(),
                            SoakConfig.targetOf("wt", SoakLun.Kind.NULL),
                            0,
                            SLOW_READER_ADDRESS,
                            8,
                            SLOW_READER_HOLD,
                            SLOW_READER_DROP);
            };
            ok = true;
        } catch (Exception | AssertionError e) {
            ok = false;
            detail = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        wt.note("chaos " + kind + (ok ? " done: " : " FAILED: ") + detail);
        recorder.chaos(new SoakRecorder.Chaos(kind.name().toLowerCase(), wt.name(), start, Instant.now(), ok, detail));
    }

    /** After a restart of the wt daemon, or a SIGHUP: soak-chap takes the config file's secret again. */
    synchronized void chapFromFile() {
        chapSecret = SoakConfig.CHAP_SECRET_FILE;
    }

    /**
     * The target asks one fio session to log out (admin API): libiscsi logs out and in again, so a new session of the
     * same initiator appears. Then a raw session logs in, reads, logs out, and again with the same ISID.
     */
    private String sessionLogoutLogin() throws Exception {
        JsonNode sessions =
                new ObjectMapper().readTree(admin.run("--json", "sessions").ok().output());
        List<JsonNode> fio = new ArrayList<>();
        for (JsonNode s : sessions) {
            if (s.path("initiator").asText().contains("soak-fio-")) {
                fio.add(s);
            }
        }
        String asked = "no fio session was open";
        if (!fio.isEmpty()) {
            JsonNode s = fio.get(random.nextInt(fio.size()));
            String initiator = s.path("initiator").asText();
            int tsih = s.path("tsih").asInt();
            AdminCli.Run logout = admin.run("session-logout", Integer.toString(tsih));
            if (logout.exitCode() != 0 && logout.output().contains("no session " + tsih)) {
                // its fio round ended between the listing and the request: the daemon's answer is the right one
                asked = "session tsih " + tsih + " of " + initiator + " ended before the request ("
                        + logout.output().strip() + ")";
            } else {
                logout.ok();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                boolean back = false;
                while (!back && System.nanoTime() < deadline) {
                    Thread.sleep(500);
                    for (JsonNode n : new ObjectMapper()
                            .readTree(admin.run("--json", "sessions").ok().output())) {
                        back |= n.path("initiator").asText().equals(initiator)
                                && n.path("tsih").asInt() != tsih;
                    }
                }
                // a round may have ended meanwhile, in which case the next round's session is as good
                asked = "session tsih " + tsih + " of " + initiator + " asked to log out; "
                        + (back
                                ? "the initiator logged in again"
                                : "no new session of it within 20 s (its round may have ended)");
            }
        }
        String raw = SoakRawChaos.logoutAndLogin(
                "127.0.0.1", wt.port(), SoakConfig.targetOf("wt", SoakLun.Kind.DISK_FILE), 0);
        return asked + "; raw session: " + raw;
    }

    private String killInitiator() {
        List<LunWorker> order = new ArrayList<>(workers);
        Collections.shuffle(order, random);
        for (LunWorker w : order) {
            if (w.killInitiator()) {
                return "fio on " + w.lun().label() + " killed (SIGKILL) mid-round";
            }
        }
        return "no fio round was running";
    }

    /** A file LUN (a RAM LUN cannot grow) added, grown and removed through the admin CLI; READ CAPACITY agrees. */
    private String lunAddResizeRemove() throws Exception {
        String t = SoakConfig.CHAOS_TARGET;
        String id = Integer.toString(SoakConfig.ADDED_LUN);
        Path file = wt.dataDir().resolve("added-" + (++lunsAdded) + ".img");
        admin.run("lun-add", t, "--id", id, "--backing", "file", "--path", file.toString(), "--size", "32M")
                .ok();
        try {
            long added = SoakRawChaos.capacityBytes("127.0.0.1", wt.port(), t, SoakConfig.ADDED_LUN);
            admin.run("lun-resize", t, "--id", id, "--size", "64M").ok();
            long resized = SoakRawChaos.capacityBytes("127.0.0.1", wt.port(), t, SoakConfig.ADDED_LUN);
            if (added != 32L << 20 || resized != 64L << 20) {
                throw new AssertionError("LUN " + id + " read " + added + " bytes after lun-add --size 32M and "
                        + resized + " after lun-resize --size 64M");
            }
        } finally {
            admin.run("lun-remove", t, "--id", id).ok();
            Files.deleteIfExists(file);
        }
        return "file LUN " + id + " of " + t + " added (32 MiB, READ CAPACITY agrees), grown to 64 MiB (agrees), "
                + "removed";
    }

    private String sighupReload() throws Exception {
        boolean present = config.toggleSighupLun();
        wt.writeConfig(config.yaml("wt"));
        long before = reloadsLogged();
        wt.sighup();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String done = null;
        while (done == null && System.nanoTime() < deadline) {
            Thread.sleep(200);
            done = lastReloadIfNew(before);
        }
        chapFromFile();
        if (done == null) {
            throw new AssertionError("no 'reload: N of M change(s) applied' line within 30 s of the SIGHUP");
        }
        Matcher m = RELOAD_DONE.matcher(done);
        if (!m.find() || !m.group(1).equals(m.group(2)) || m.group(1).equals("0")) {
            throw new AssertionError(
                    "the reload of a file that " + (present ? "adds" : "removes") + " a LUN logged: " + done);
        }
        if (present) {
            long bytes =
                    SoakRawChaos.capacityBytes("127.0.0.1", wt.port(), SoakConfig.CHAOS_TARGET, SoakConfig.SIGHUP_LUN);
            if (bytes != 8L << 20) {
                throw new AssertionError(
                        "LUN " + SoakConfig.SIGHUP_LUN + " reads " + bytes + " bytes after the reload");
            }
        }
        return "SIGHUP with LUN " + SoakConfig.SIGHUP_LUN + (present ? " added to" : " removed from") + " the file: "
                + done.substring(done.indexOf("reload:"));
    }

    private long reloadsLogged() throws IOException {
        return Files.readAllLines(wt.log(), StandardCharsets.ISO_8859_1).stream()
                .filter(l -> RELOAD_DONE.matcher(l).find())
                .count();
    }

    private String lastReloadIfNew(long before) throws IOException {
        List<String> lines = Files.readAllLines(wt.log(), StandardCharsets.ISO_8859_1).stream()
                .filter(l -> RELOAD_DONE.matcher(l).find())
                .toList();
        return lines.size() > before ? lines.get(lines.size() - 1) : null;
    }

    /**
     * A new CHAP secret for soak-chap through the admin API (target-set): a login with it must work, one with the old
     * secret must be refused.
     */
    private String chapChange() throws Exception {
        String old;
        synchronized (this) {
            old = chapSecret;
        }
        String fresh = "soakSecretChanged" + (++chapChanges);
        Path secretFile = out.resolve("admin").resolve("chap.secret");
        Files.writeString(secretFile, fresh + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
        admin.run(
                        "target-set",
                        SoakConfig.CHAP_TARGET,
                        "--chap-user",
                        SoakConfig.CHAP_USER,
                        "--chap-secret-file",
                        secretFile.toString())
                .ok();
        synchronized (this) {
            chapSecret = fresh;
        }
        int withNew = iscsiInq(fresh);
        int withOld = iscsiInq(old);
        if (withNew != 0 || withOld == 0) {
            throw new AssertionError("after the CHAP change a login with the new secret exited " + withNew
                    + " (0 expected) and one with the old secret " + withOld + " (refused expected)");
        }
        return "CHAP secret of " + SoakConfig.CHAP_TARGET
                + " changed live: the new one logs in, the old one is refused";
    }

    /** iscsi-inq with CHAP user and {@code secret} on soak-chap's LUN 0; its exit code. */
    private int iscsiInq(String secret) throws IOException, InterruptedException {
        String url = "iscsi://" + SoakConfig.CHAP_USER + "%" + secret + "@127.0.0.1:" + wt.port() + "/"
                + SoakConfig.CHAP_TARGET + "/0";
        Path log = out.resolve("admin")
                .resolve("iscsi-inq-" + chapChanges + "-" + (secret.equals(chapSecret) ? "new" : "old") + ".log");
        Process p = new ProcessBuilder("iscsi-inq", url)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
