package io.numaiscsi.daemon.registry;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaiscsi.config.LunDefinition;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the thin provisioning soft threshold of every LUN that has one, every {@value #PERIOD_MILLIS} ms on a timer
 * thread of its own: the system calls that read a store's space (fstat, statvfs) stay off the event threads and the
 * data path, and a threshold reached is at most that late.
 */
final class ProvisioningChecks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProvisioningChecks.class);
    static final long PERIOD_MILLIS = 2000;

    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("provisioning", true));
    private final Supplier<List<RegisteredLun>> luns;
    /** LUNs whose store could not be read, so each failure is logged once until it reads again; timer thread only. */
    private final Set<RegisteredLun> failing = new HashSet<>();

    ProvisioningChecks(Supplier<List<RegisteredLun>> luns) {
        this.luns = luns;
        timer.scheduleWithFixedDelay(this::checkAll, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    void checkAll() {
        List<RegisteredLun> now = luns.get();
        for (RegisteredLun lun : now) {
            if (lun.definition().softThreshold() == LunDefinition.NO_THRESHOLD) {
                continue;
            }
            try {
                lun.unit().checkProvisioning();
                failing.remove(lun);
            } catch (IOException | RuntimeException e) {
                if (failing.add(lun)) {
                    LOG.warn(
                            "target {} LUN {}: its store's space cannot be read, so its soft threshold is not"
                                    + " checked: {}",
                            lun.target(),
                            lun.definition().id(),
                            e.toString());
                }
            }
        }
        failing.retainAll(now);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
