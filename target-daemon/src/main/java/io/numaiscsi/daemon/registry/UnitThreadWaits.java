package io.numaiscsi.daemon.registry;

import io.numaiscsi.daemon.Reasons;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits (30 s at most) for LUNs' threads to take a change, so that the change is complete with its operation. */
final class UnitThreadWaits {
    private UnitThreadWaits() {}

    /** Waits until every unit told the sessions whose view changed, so the change is complete with the operation. */
    static void awaitAll(CompletableFuture<Void> told, String targetName) throws IOException {
        try {
            told.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for target " + targetName + "'s LUNs to take their new maps");
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException(
                    "target " + targetName + ": its LUNs' threads did not take the new maps: " + Reasons.of(e), e);
        }
    }

    /** Waits until the unit's thread serves the new size, so the change is complete when the operation is. */
    static void await(CompletableFuture<Void> applied, String targetName, int lun) throws IOException {
        try {
            applied.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for target " + targetName + " LUN " + lun + " to take its size");
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException(
                    "target " + targetName + " LUN " + lun + ": its thread did not take the new size: " + Reasons.of(e),
                    e);
        }
    }
}
