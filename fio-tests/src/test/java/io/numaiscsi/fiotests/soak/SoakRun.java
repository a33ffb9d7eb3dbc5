package io.numaiscsi.fiotests.soak;

import io.numaiscsi.rbd.CephTestCluster;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One soak run: two daemons with their defaults (one with write-back, which is daemon-wide), a LUN of every backing
 * kind this machine can give (a file on its disk and on tmpfs, a loop device, RAM, null, an RBD image on a throw-away
 * Ceph cluster), fio verifying on every LUN all the time, a chaos event every {@link SoakSettings#chaosEvery()}, a
 * restart every {@link SoakSettings#restartEvery()} (the write-through daemon alternately killed with SIGKILL and
 * stopped with SIGTERM, the write-back daemon stopped every second time), and samples every
 * {@link SoakSettings#sampleEvery()}. Writes {@code report.md}, {@code verdict.txt}, the CSVs and {@code soak.png} to
 * {@link SoakSettings#out()}.
 */
public final class SoakRun {
    static final long FILE_LUN_BYTES = 512L << 20;
    static final long RAM_LUN_BYTES = 256L << 20;
    static final long NULL_LUN_BYTES = 1L << 30;
    /** Restarts stop this long before the end, so their verify_only still runs. */
    static final Duration QUIET_END = Duration.ofSeconds(45);

    /** How the run ended: the verdict's text and whether it passed. */
    public record Result(boolean pass, String verdict, Path out) {}

    private final SoakSettings settings;
    private final Random random;
    private final List<String> notes = new ArrayList<>();
    private final List<AutoCloseable> cleanups = new ArrayList<>();
    private final Map<String, SoakDaemon> daemons = new LinkedHashMap<>();
    private final List<LunWorker> workers = new ArrayList<>();
    private final boolean keepData = Boolean.getBoolean("it.soak.keepData");
    private Path base;
    private Path shm;

    private SoakRun(SoakSettings settings) {
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    public static Result run(SoakSettings settings) throws Exception {
        return new SoakRun(settings).run();
    }

    private Result run() throws Exception {
        Path out = settings.out();
        Files.createDirectories(out.resolve("rounds"));
        log("soak: " + settings.describe() + "; results in " + out);
        try {
            List<SoakLun> luns = prepareLuns();
            Duration kernelLength = KernelGuest.lengthFor(settings.duration());
            SoakConfig config = new SoakConfig(luns, !kernelLength.isZero());
            for (String name : config.daemons()) {
                Path data = Files.createDirectory(
                        base.resolve(name),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                SoakDaemon d = new SoakDaemon(name, out, data, settings.daemonJvmOptions());
                d.writeConfig(config.yaml(name));
                daemons.put(name, d);
            }
            for (SoakDaemon d : daemons.values()) {
                d.start();
                log("soak: daemon " + d.name() + " pid " + d.pid() + " on 127.0.0.1:" + d.port() + ", metrics :"
                        + d.metricsPort());
            }
            Instant t0 = Instant.now();
            SoakRecorder recorder = new SoakRecorder(out, t0);
            Map<String, String> labels = new LinkedHashMap<>();
            luns.forEach(l -> labels.put(l.target(), l.label()));
            Sampler sampler = new Sampler(
                    List.copyOf(daemons.values()),
                    iqn -> labels.getOrDefault(iqn, iqn.replace(SoakConfig.IQN_PREFIX, "")),
                    out,
                    recorder);
            ExecutorService load = Executors.newCachedThreadPool();
            for (SoakLun l : luns) {
                SoakDaemon d = daemons.get(l.daemon());
                LunWorker w = new LunWorker(
                        l,
                        "iscsi://127.0.0.1:" + d.port() + "/" + l.target() + "/0",
                        out.resolve("rounds"),
                        settings.fio(),
                        recorder,
                        random.nextLong());
                workers.add(w);
                load.execute(w);
            }
            ScheduledExecutorService sampling = Executors.newSingleThreadScheduledExecutor();
            sampling.scheduleAtFixedRate(
                    sampler::sample,
                    settings.sampleEvery().toMillis(),
                    settings.sampleEvery().toMillis(),
                    TimeUnit.MILLISECONDS);
            SoakDaemon wt = daemons.get("wt");
            KernelGuest kernel = null;
            Thread kernelThread = null;
            if (!kernelLength.isZero()) {
                kernel = new KernelGuest(wt, kernelLength);
                kernelThread = new Thread(kernel, "soak-kernel-guest");
                kernelThread.setDaemon(true);
                kernelThread.start();
                note("the kernel initiator (qemu guest, ext4 on " + SoakConfig.KERNEL_TARGET + ", fio verify) for the"
                        + " first " + SoakSettings.human(kernelLength));
            }
            Chaos chaos = new Chaos(wt, new AdminCli(wt, out), config, workers, recorder, random, out);
            Instant end = t0.plus(settings.duration());
            disturb(t0, end, chaos, recorder);
            if (kernelThread != null) {
                kernelThread.join(kernelLength.plus(KernelGuest.OVERHEAD_LIMIT).toMillis());
            }
            log("soak: load ends; a last verify_only on every LUN");
            workers.forEach(w -> w.stop(true));
            load.shutdown();
            load.awaitTermination(2, TimeUnit.MINUTES);
            finalVerify();
            Instant stopped = Instant.now();
            sampling.shutdown();
            sampling.awaitTermination(1, TimeUnit.MINUTES);
            sampler.sample();
            for (SoakDaemon d : daemons.values()) {
                d.stop();
            }
            sampler.drainGcLogs();
            SoakVerdict verdict = new SoakVerdict(
                    settings,
                    recorder,
                    sampler,
                    List.copyOf(daemons.values()),
                    luns,
                    stopped,
                    kernel == null ? null : kernel::outcome);
            String text = verdict.text();
            Files.writeString(out.resolve("verdict.txt"), text);
            new SoakChart(t0, sampler.resources(), sampler.luns(), recorder.restarts())
                    .write(out.resolve("soak.png"), "soak " + SoakSettings.human(settings.duration()));
            Files.writeString(out.resolve("report.md"), report(luns, recorder, text), StandardCharsets.UTF_8);
            log(text);
            return new Result(verdict.pass(), text, out);
        } finally {
            cleanUp();
        }
    }

    /** Chaos events and restarts, one at a time, until {@code end}. */
    private void disturb(Instant t0, Instant end, Chaos chaos, SoakRecorder recorder) throws Exception {
        Instant nextChaos = t0.plus(settings.chaosEvery());
        Instant nextRestart = t0.plus(settings.restartEvery());
        int restarts = 0;
        while (true) {
            boolean restartDue = nextRestart.isBefore(end.minus(QUIET_END));
            Instant next = restartDue && nextRestart.isBefore(nextChaos) ? nextRestart : nextChaos;
            if (!next.isBefore(end)) {
                sleepUntil(end);
                return;
            }
            sleepUntil(next);
            if (restartDue && next.equals(nextRestart)) {
                restarts++;
                restartAll(restarts, chaos, recorder);
                nextRestart = nextRestart.plus(settings.restartEvery());
            } else {
                chaos.next();
                nextChaos = nextChaos.plus(settings.chaosEvery());
                if (nextChaos.isBefore(Instant.now())) {
                    nextChaos = Instant.now(); // a long event (the slow reader): the next one follows at once
                }
            }
        }
    }

    /**
     * Restart {@code k}: the write-through daemon killed (odd k) or stopped (even k), the write-back daemon stopped
     * when k is even. LUNs whose data does not survive are paused around it; the others go on through it and verify
     * the data written before it next.
     */
    private void restartAll(int k, Chaos chaos, SoakRecorder recorder) throws Exception {
        for (SoakDaemon d : daemons.values()) {
            boolean writeBack = d.name().equals("wb");
            if (writeBack && k % 2 == 1) {
                continue;
            }
            boolean kill9 = !writeBack && k % 2 == 1;
            List<LunWorker> mine = workers.stream()
                    .filter(w -> w.lun().daemon().equals(d.name()))
                    .toList();
            List<LunWorker> losing =
                    mine.stream().filter(w -> !w.lun().survives(kill9)).toList();
            for (LunWorker w : losing) {
                w.pause();
            }
            log("soak: restart " + k + " of " + d.name() + " (" + (kill9 ? "SIGKILL" : "SIGTERM") + ")");
            Instant start = Instant.now();
            int exit;
            if (kill9) {
                d.kill9();
                exit = 137;
            } else {
                exit = d.stop();
            }
            d.start();
            recorder.restart(new SoakRecorder.Restart(d.name(), kill9, start, Instant.now(), exit));
            if (d.name().equals("wt")) {
                chaos.chapFromFile();
            }
            for (LunWorker w : mine) {
                if (losing.contains(w)) {
                    w.resumeForgetting();
                } else {
                    w.verifyCommittedNext();
                }
            }
        }
    }

    private void finalVerify() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(workers.size());
        List<Future<FioRound.Result>> results = new ArrayList<>();
        for (LunWorker w : workers) {
            results.add(pool.submit(w::finalVerify));
        }
        for (Future<FioRound.Result> f : results) {
            try {
                f.get(15, TimeUnit.MINUTES);
            } catch (ExecutionException | TimeoutException e) {
                log("soak: a final verify did not run: " + e);
            }
        }
        pool.shutdownNow();
    }

    /** The LUNs of every kind this machine gives; a kind it cannot give is left out with a note. */
    private List<SoakLun> prepareLuns() throws Exception {
        base = Files.createTempDirectory(Path.of("/var/tmp"), "nit-soak-");
        shm = Files.createTempDirectory(Path.of("/dev/shm"), "nit-soak-");
        List<SoakLun> luns = new ArrayList<>();
        for (String d : List.of("wt", "wb")) {
            boolean wb = d.equals("wb");
            luns.add(lun(
                    d,
                    SoakLun.Kind.DISK_FILE,
                    FILE_LUN_BYTES,
                    "{id: 0, backing: file, path: disk.img, size: 512M}",
                    wb));
            luns.add(lun(
                    d,
                    SoakLun.Kind.TMPFS_FILE,
                    FILE_LUN_BYTES,
                    "{id: 0, backing: file, path: " + shm.resolve(d + "-tmpfs.img") + ", size: 512M}",
                    wb));
        }
        Path loop = attachLoop();
        if (loop != null) {
            luns.add(lun(
                    "wt", SoakLun.Kind.BLOCK, FILE_LUN_BYTES, "{id: 0, backing: block, path: " + loop + "}", false));
        }
        luns.add(lun("wt", SoakLun.Kind.RAM, RAM_LUN_BYTES, "{id: 0, backing: ram, size: 256M}", false));
        luns.add(lun("wt", SoakLun.Kind.NULL, NULL_LUN_BYTES, "{id: 0, backing: null, size: 1G}", false));
        CephTestCluster ceph = startCeph();
        if (ceph != null) {
            ceph.createImage("soak", FILE_LUN_BYTES);
            luns.add(lun(
                    "wt",
                    SoakLun.Kind.RBD,
                    FILE_LUN_BYTES,
                    "{id: 0, backing: rbd, pool: " + CephTestCluster.POOL
                            + ", image: soak, ceph-conf: " + ceph.conf() + ", rbd-user: admin, keyring: "
                            + ceph.adminKeyring() + "}",
                    false));
        }
        luns.sort(Comparator.comparing(SoakLun::daemon)
                .reversed()
                .thenComparing(l -> l.kind().ordinal()));
        return luns;
    }

    private static SoakLun lun(String daemon, SoakLun.Kind kind, long bytes, String yaml, boolean writeBack) {
        return new SoakLun(daemon, kind, SoakConfig.targetOf(daemon, kind), bytes, yaml, writeBack);
    }

    private Path attachLoop() throws Exception {
        Path losetup = Stream.of("/usr/sbin/losetup", "/sbin/losetup")
                .map(Path::of)
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        if (losetup == null || !"root".equals(System.getProperty("user.name"))) {
            note("no block-device LUN: attaching a loop device needs root and losetup");
            return null;
        }
        Path file = base.resolve("loop.img");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(FILE_LUN_BYTES);
        }
        String dev = exec(List.of(losetup.toString(), "--find", "--show", "--direct-io=on", file.toString()))
                .strip();
        Path device = Path.of(dev.lines().reduce((a, b) -> b).orElseThrow());
        cleanups.add(() -> exec(List.of(losetup.toString(), "-d", device.toString())));
        note("block-device LUN on " + device + " (losetup --direct-io=on over " + file + ")");
        return device;
    }

    private CephTestCluster startCeph() throws IOException {
        if (!settings.rbd()
                || Stream.of("/usr/bin/ceph-mon", "/usr/bin/ceph-osd", "/usr/bin/rbd")
                        .anyMatch(p -> !Files.isExecutable(Path.of(p)))) {
            note("no RBD LUN: " + (settings.rbd() ? "ceph-mon, ceph-osd or rbd is not installed" : "turned off"));
            return null;
        }
        int portBase = freePortRange();
        CephTestCluster c = CephTestCluster.start(base.resolve("ceph"), portBase);
        cleanups.add(c);
        note("RBD LUN on a throw-away Ceph cluster (one mon on 127.0.0.1:" + portBase + ", one memstore OSD)");
        return c;
    }

    /** The first port base from 15300 on (in steps of 100) whose 40 ports are free on 127.0.0.1. */
    private static int freePortRange() throws IOException {
        for (int b = 15300; b < 30000; b += 100) {
            boolean free = true;
            for (int p = b; p < b + 40 && free; p++) {
                try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getByName("127.0.0.1"))) {
                    s.setReuseAddress(true);
                } catch (IOException used) {
                    free = false;
                }
            }
            if (free) {
                return b;
            }
        }
        throw new IOException("no free range of 40 ports for the Ceph cluster");
    }

    private String report(List<SoakLun> luns, SoakRecorder recorder, String verdict) {
        StringBuilder r =
                new StringBuilder("# Soak run\n\n").append(settings.describe()).append(".\n\n");
        for (String n : notes) {
            r.append("- ").append(n).append('\n');
        }
        r.append(
                "\n## LUNs\n| LUN | daemon | backing | size | rounds ok / failed (by outcome) |\n|---|---|---|--:|---|\n");
        for (SoakLun l : luns) {
            Map<String, Integer> outcomes = new LinkedHashMap<>();
            recorder.rounds().stream()
                    .filter(x -> x.lun().equals(l))
                    .forEach(x -> outcomes.merge(x.result().outcome().name().toLowerCase(), 1, Integer::sum));
            r.append("| ")
                    .append(l.label())
                    .append(" | ")
                    .append(l.daemon().equals("wt") ? "defaults (write-through)" : "write-back")
                    .append(" | ")
                    .append(l.kind().description())
                    .append(" | ")
                    .append(l.bytes() >> 20)
                    .append(" MiB | ")
                    .append(outcomes)
                    .append(" |\n");
        }
        r.append("\n## Chaos events\n| at (s) | kind | ok | what happened |\n|--:|---|---|---|\n");
        for (SoakRecorder.Chaos c : recorder.chaosEvents()) {
            r.append("| ")
                    .append(recorder.seconds(c.start()))
                    .append(" | ")
                    .append(c.kind())
                    .append(" | ")
                    .append(c.ok() ? "yes" : "**no**")
                    .append(" | ")
                    .append(c.detail().replace("|", "/"))
                    .append(" |\n");
        }
        r.append("\n## Restarts\n| at (s) | daemon | how | down for (s) | exit code |\n|--:|---|---|--:|--:|\n");
        for (SoakRecorder.Restart s : recorder.restarts()) {
            r.append("| ")
                    .append(recorder.seconds(s.start()))
                    .append(" | ")
                    .append(s.daemon())
                    .append(" | ")
                    .append(s.kill9() ? "SIGKILL" : "SIGTERM")
                    .append(" | ")
                    .append(String.format(
                            "%.1f", Duration.between(s.start(), s.end()).toMillis() / 1000.0))
                    .append(" | ")
                    .append(s.exitCode())
                    .append(" |\n");
        }
        r.append("\n## Verdict\n```\n")
                .append(verdict)
                .append("```\n\n")
                .append(
                        "Files: `resources.csv`, `luns.csv` (samples), `rounds.csv`, `chaos.csv`, `restarts.csv`, "
                                + "`soak.png`, `verdict.txt`, `<daemon>-daemon.log`, `<daemon>-gc-<start>.log`, `rounds/` (the "
                                + "job file, output and JSON of every round that did not pass), `admin/` (every admin CLI run).\n");
        return r.toString();
    }

    private void note(String s) {
        notes.add(s);
        log("soak: " + s);
    }

    private static void log(String s) {
        System.out.println(s);
        System.out.flush();
    }

    private static void sleepUntil(Instant t) throws InterruptedException {
        long ms = Duration.between(Instant.now(), t).toMillis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    private static String exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + output);
        }
        return output;
    }

    /** Stops what is left (workers, daemons), detaches the loop device, stops Ceph, removes the data directories. */
    private void cleanUp() {
        workers.forEach(w -> w.stop(true));
        for (SoakDaemon d : daemons.values()) {
            try {
                d.stop();
            } catch (InterruptedException | RuntimeException e) {
                log("soak: stopping " + d.name() + ": " + e);
            }
        }
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            try {
                cleanups.get(i).close();
            } catch (Exception e) {
                log("soak: cleanup: " + e.getMessage());
            }
        }
        if (!keepData) {
            for (Path dir : new Path[] {base, shm}) {
                if (dir == null) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(f);
                    }
                } catch (IOException e) {
                    log("soak: could not delete " + dir + ": " + e.getMessage());
                }
            }
        }
    }
}
