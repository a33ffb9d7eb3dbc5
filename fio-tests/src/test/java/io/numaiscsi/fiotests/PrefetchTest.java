package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PRE-FETCH with the daemon's defaults (a file LUN, the per-node cache): a 1 MiB PRE-FETCH answers CONDITION MET,
 * and 4K random reads over that range then hit the cache, every one (cache_hits_total moves by their count, no miss),
 * where the same reads over a range nobody prefetched are read through.
 */
@Tag("it")
class PrefetchTest {
    static final long LUN_BYTES = 256L << 20;
    static final Duration ANSWER = Duration.ofSeconds(30);
    static final int CONDITION_MET = 0x04;
    static final int READS = 64;

    @Test
    void aPrefetchedRangeIsServedFromTheCache() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "scrapes its own daemon's metrics");
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup =
                DaemonProcess.Setup.fileLun(LUN_BYTES).daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        try (DaemonProcess daemon = DaemonProcess.start("PrefetchTest", setup);
                TestConnection c = TestConnection.loggedIn(daemon.target())) {
            RawIo.testUnitReady(c, 0, ANSWER);
            long lba = (64L << 20) / 512;
            int blocks = (1 << 20) / 512;
            int itt = c.newItt();
            c.send(c.scsiCommand(0, itt, ScsiCdb.prefetch10(lba, blocks), 0, 0, true));
            ScsiResult r = c.awaitStatus(itt, ANSWER);
            assertEquals(CONDITION_MET, r.status(), "PRE-FETCH(10) of 1 MiB: the range is in the cache: " + r);

            PromText before = PromText.fetch(metricsPort);
            Random random = new Random(4);
            for (int i = 0; i < READS; i++) {
                ScsiResult read = RawIo.read(c, 0, lba + 8L * random.nextInt(blocks / 8), 8, ANSWER);
                assertEquals(ScsiResult.GOOD, read.status(), "READ(10): " + read);
            }
            PromText after = PromText.fetch(metricsPort);
            assertEquals(
                    READS,
                    after.sum("cache_hits_total") - before.sum("cache_hits_total"),
                    "every 4K read of the prefetched range hit\n" + daemon.logTail());
            assertEquals(0, after.sum("cache_misses_total") - before.sum("cache_misses_total"), "and none missed");

            long elsewhere = (160L << 20) / 512;
            for (int i = 0; i < READS; i++) {
                RawIo.read(c, 0, elsewhere + 8L * random.nextInt(blocks / 8), 8, ANSWER);
            }
            PromText unprefetched = PromText.fetch(metricsPort);
            assertTrue(
                    unprefetched.sum("cache_misses_total") - after.sum("cache_misses_total") > READS / 2,
                    "the same reads where nothing was prefetched mostly miss (the comparison the test relies on)");
            daemon.assertAlive();
        }
    }
}
