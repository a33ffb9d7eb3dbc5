package io.numaiscsi.fiotests.soak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The soak ({@link SoakRun}) for {@code -Dit.soak.minutes} (default 5: the form {@code bin/run-tests} runs; about 6
 * minutes of wall time) and its verdict. {@code bin/soak --hours 2} runs the same for two hours. Other properties:
 * {@code it.soak.out} (results, default {@code target/it-logs/soak}), {@code it.soak.seed}, {@code it.soak.javaOpts}
 * (the daemons' JVM options instead of the launchers' defaults, space-separated), {@code it.soak.chaosSeconds},
 * {@code it.soak.restartSeconds}, {@code it.soak.rbd=false} (no Ceph cluster), {@code it.soak.keepData=true}.
 */
@Tag("it")
class SoakTest {

    @Test
    void soakPassesItsVerdict() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs its own daemons");
        String fio = System.getProperty("it.fio", "/opt/fio-libiscsi/bin/fio");
        assertTrue(
                Files.isExecutable(Path.of(fio)),
                fio + " missing: build it with fio-tests/tools/build-fio-libiscsi.sh (bin/run-tests does)");
        double minutes = Double.parseDouble(System.getProperty("it.soak.minutes", "5"));
        Path out = Path.of(System.getProperty(
                        "it.soak.out",
                        Path.of(System.getProperty("it.logDir", "target/it-logs"), "soak")
                                .toString()))
                .toAbsolutePath();
        SoakSettings s = SoakSettings.forDuration(Duration.ofSeconds(Math.round(minutes * 60)), out, fio);
        String seed = System.getProperty("it.soak.seed", "");
        if (!seed.isBlank()) {
            s = s.withSeed(Long.parseLong(seed));
        }
        String javaOpts = System.getProperty("it.soak.javaOpts", "");
        if (!javaOpts.isBlank()) {
            s = s.withDaemonJvmOptions(
                    Arrays.stream(javaOpts.trim().split("\\s+")).toList());
        }
        String chaos = System.getProperty("it.soak.chaosSeconds", "");
        if (!chaos.isBlank()) {
            s = s.withChaosEvery(Duration.ofSeconds(Long.parseLong(chaos)));
        }
        String restart = System.getProperty("it.soak.restartSeconds", "");
        if (!restart.isBlank()) {
            s = s.withRestartEvery(Duration.ofSeconds(Long.parseLong(restart)));
        }
        s = s.withRbd(!"false".equals(System.getProperty("it.soak.rbd")));
        SoakRun.Result r = SoakRun.run(s);
        assertTrue(r.pass(), "the soak's verdict (" + r.out() + "/report.md):\n" + r.verdict());
    }
}
