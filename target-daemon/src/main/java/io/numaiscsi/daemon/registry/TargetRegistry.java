package io.numaiscsi.daemon.registry;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.config.AluaDefinition;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.LunMap;
import io.numaiscsi.config.SharedReservationsDefinition;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.cluster.VersionedObject;
import io.numaiscsi.daemon.cluster.VersionedObjects;
import io.numaiscsi.daemon.events.LunEventLoops;
import io.numaiscsi.daemon.reservations.SharedReservationObject;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeLocator;
import io.numaiscsi.rbd.ImageOwnership;
import io.numaiscsi.rbd.RbdBlockDevice;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import io.numaiscsi.scsi.TargetPortGroups;
import io.numaiscsi.scsi.TransportTaskAborts;
import io.numaiscsi.session.ExportedTarget;
import io.numaiscsi.session.TargetDirectory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running target's model: its targets, their LUNs and backing stores. One control thread owns it and applies
 * {@link RegistryOperation}s one at a time, so no two changes interleave; sessions see the result through the
 * {@link TargetDirectory} and each target's {@link ScsiTarget}, whose snapshots are safe to read from any thread.
 */
public final class TargetRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TargetRegistry.class);

    private final ExecutorService control =
            Executors.newSingleThreadExecutor(new DefaultThreadFactory("control", true));
    private final TargetDirectory directory = new TargetDirectory(List.of());
    private final BackingOpener opener;
    private final LunEventLoops threads;
    private final ByteBufAllocator alloc;
    private final TransportTaskAborts transportAborts;
    private final int sharedReadMin;
    private final NodeLocator locator;
    private final ReservationStores reservationStores;
    private final ModePageStores modePageStores;
    /** The targets as added (their LUNs not read), in that order; control thread only. */
    private final Map<String, TargetDefinition> definitions = new LinkedHashMap<>();
    /** By target, then LUN id in the order added; control thread only. */
    private final Map<String, Map<Integer, RegisteredLun>> lunsByTarget = new HashMap<>();
    /** {@link #definitions} with their LUNs now, rebuilt after every operation; for readers on other threads. */
    private volatile List<TargetDefinition> definitionSnapshot = List.of();
    /** Every LUN that has a device open, also those removed but not yet idle; for readers on other threads. */
    private final List<RegisteredLun> open = new CopyOnWriteArrayList<>();
    /** This gateway's name in its gateway group, or null outside one. */
    private final String member;

    private final ProvisioningChecks provisioningChecks = new ProvisioningChecks(() -> List.copyOf(open));

    /**
     * @param sharedReadMin     reads of at least this many bytes are served from device memory ({@link
     *                          LogicalUnit#sharedReadMin})
     * @param reservationStores where each LUN keeps its persistent reservations while APTPL is active
     * @param modePageStores    where each LUN keeps the mode parameters MODE SELECT saved
     * @param member            this gateway's name in its gateway group (null: none)
     */
    public TargetRegistry(
            BackingOpener opener,
            LunEventLoops threads,
            ByteBufAllocator alloc,
            TransportTaskAborts transportAborts,
            int sharedReadMin,
            NodeLocator locator,
            ReservationStores reservationStores,
            ModePageStores modePageStores,
            String member) {
        this.member = member;
        this.locator = locator;
        this.reservationStores = reservationStores;
        this.modePageStores = modePageStores;
        this.opener = opener;
        this.threads = threads;
        this.alloc = alloc;
        this.transportAborts = transportAborts;
        this.sharedReadMin = sharedReadMin;
    }

    public TargetDirectory directory() {
        return directory;
    }

    /** The targets with their LUNs as they are served now (the config's targets changed by every operation since). */
    public List<TargetDefinition> targets() {
        return definitionSnapshot;
    }

    /** Every LUN with an open device, as of now. */
    public List<RegisteredLun> luns() {
        return List.copyOf(open);
    }

    /** Queues one change; the future fails with the reason when it cannot be applied (nothing changed then). */
    public CompletableFuture<Void> apply(RegistryOperation op) {
        return CompletableFuture.runAsync(
                () -> {
                    try {
                        applyNow(op);
                    } catch (IOException e) {
                        throw new RegistryException(op + ": " + e.getMessage(), e);
                    }
                },
                control);
    }

    /**
     * Applies changes in order, waiting for each; stops at the first that fails and throws its cause (an
     * {@link IOException} from a backing store as itself, so callers can tell a bad file from a bad request).
     */
    public void applyAll(List<RegistryOperation> ops) throws IOException, InterruptedException {
        for (RegistryOperation op : ops) {
            try {
                apply(op).get();
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RegistryException r && r.getCause() instanceof IOException io) {
                    throw io;
                }
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                throw new IllegalStateException(cause);
            }
        }
    }

    private void applyNow(RegistryOperation op) throws IOException {
        if (op instanceof RegistryOperation.AddTarget a) {
            addTarget(a.target());
        } else if (op instanceof RegistryOperation.AddLun a) {
            addLun(a.target(), a.lun());
        } else if (op instanceof RegistryOperation.RemoveLun r) {
            removeLun(r.target(), r.lun());
        } else if (op instanceof RegistryOperation.UpdateTarget u) {
            updateTarget(u.target());
        } else if (op instanceof RegistryOperation.RemoveTarget r) {
            removeTarget(r.target());
        } else if (op instanceof RegistryOperation.ResizeLun r) {
            resizeLun(r.target(), r.lun(), r.sizeBytes());
        } else if (op instanceof RegistryOperation.SetLunMaps m) {
            setLunMaps(m.target(), m.maps());
        } else if (op instanceof RegistryOperation.SetPortGroups g) {
            setPortGroups(g.target(), g.alua());
        } else {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        List<TargetDefinition> served = new ArrayList<>();
        for (TargetDefinition t : definitions.values()) {
            List<LunDefinition> luns = new ArrayList<>();
            for (RegisteredLun lun : lunsByTarget.get(t.name()).values()) {
                luns.add(lun.definition());
            }
            served.add(t.withLuns(luns));
        }
        definitionSnapshot = List.copyOf(served);
    }

    private void addTarget(TargetDefinition t) {
        if (directory.find(t.name()) != null) {
            throw new IllegalArgumentException("target " + t.name() + " exists already");
        }
        ScsiTarget scsi = new ScsiTarget(t.name(), List.of(), alloc, AluaGroups.of(t.alua()));
        scsi.transportAborts(transportAborts);
        scsi.masking(LunMaps.masking(t.lunMaps()));
        directory.add(new ExportedTarget(t.name(), t.alias(), t.access(), scsi, Credentials.account(t.chap())));
        lunsByTarget.put(t.name(), new LinkedHashMap<>());
        definitions.put(t.name(), t);
        LOG.info("target {}: {}; {}", t.name(), describeAccess(t), scsi.portGroups());
    }

    private void setLunMaps(String targetName, List<LunMap> maps) throws IOException {
        ExportedTarget target = existing(targetName);
        definitions.put(targetName, definitions.get(targetName).withLunMaps(maps));
        UnitThreadWaits.awaitAll(target.scsi().masking(LunMaps.masking(maps)), targetName);
        LOG.info("target {}: LUN maps now {}", targetName, target.scsi().masking());
    }

    private void setPortGroups(String targetName, AluaDefinition alua) {
        ExportedTarget target = existing(targetName);
        TargetDefinition def = definitions.get(targetName);
        target.scsi().replacePortGroups(AluaGroups.of(alua));
        definitions.put(
                targetName,
                new TargetDefinition(
                        def.name(),
                        def.alias(),
                        def.allowedInitiators(),
                        def.luns(),
                        def.chap(),
                        def.allowNetworks(),
                        alua,
                        def.sharedReservations(),
                        def.lunMaps()));
        LOG.info("target {}: port groups now {}", targetName, target.scsi().portGroups());
    }

    private void updateTarget(TargetDefinition t) {
        ExportedTarget old = existing(t.name());
        directory.replace(
                new ExportedTarget(t.name(), t.alias(), t.access(), old.scsi(), Credentials.account(t.chap())));
        definitions.put(t.name(), t.withLunMaps(definitions.get(t.name()).lunMaps())); // SetLunMaps changes those
        LOG.info("target {}: now {}", t.name(), describeAccess(t));
    }

    private void removeTarget(String name) {
        existing(name);
        for (Integer lun : new ArrayList<>(lunsByTarget.get(name).keySet())) {
            removeLun(name, lun);
        }
        directory.remove(name);
        lunsByTarget.remove(name);
        definitions.remove(name);
        LOG.info("target {}: removed; no new login finds it", name);
    }

    private static String describeAccess(TargetDefinition t) {
        return (t.chap() == null ? "no authentication" : t.chap().mutual() ? "CHAP (mutual possible)" : "CHAP")
                + ", initiators " + (t.allowedInitiators().isEmpty() ? "ALL" : t.allowedInitiators())
                + ", networks " + (t.allowNetworks().isEmpty() ? "any" : t.allowNetworks());
    }

    private void addLun(String targetName, LunDefinition lun) throws IOException {
        ExportedTarget target = existing(targetName);
        if (target.scsi().unit(lun.id()) != null) {
            throw new IllegalArgumentException("target " + targetName + " has a LUN " + lun.id() + " already");
        }
        TargetDefinition definition = definitions.get(targetName);
        String what = "target " + targetName + " LUN " + lun.id();
        DataTouches touches = new DataTouches(locator);
        BlockDevice device = opener.open(targetName, lun, touches, definition.alua() != null);
        List<AutoCloseable> companions = new ArrayList<>();
        LogicalUnit unit;
        try {
            unit = new LogicalUnit(
                    lun.id(), LunIdentity.derive(targetName, lun.id(), lun.serial()), device, lun.physicalBlockSize());
        } catch (IllegalArgumentException e) {
            DeviceShutdown.flushAndClose(device, what);
            throw new IOException(what + ": physical-block-size " + e.getMessage(), e);
        }
        try {
            unit.reservationStore(reservationStores.open(targetName, lun.id()));
            unit.modePageStore(modePageStores.open(targetName, lun.id()));
            VersionedObject sharedObject = null;
            SharedReservationsDefinition shared = definition.sharedReservations();
            if (shared != null) {
                TargetPortGroups groups = target.scsi().portGroups();
                List<Integer> peerPorts = SharedLuns.peerPorts(groups, member);
                sharedObject = VersionedObjects.open(shared, targetName, lun.id(), groups.localPort(), peerPorts);
                if (sharedObject instanceof AutoCloseable c) {
                    companions.add(c);
                }
                SharedReservationObject object = new SharedReservationObject(sharedObject, targetName, lun.id());
                unit.sharedReservations(object);
                LOG.info("{}: persistent reservations shared through {}", what, object);
            }
            if (lun.softThreshold() != LunDefinition.NO_THRESHOLD) {
                try {
                    unit.softThreshold(lun.softThreshold());
                } catch (IllegalArgumentException e) {
                    throw new IOException(what + ": soft-threshold: " + e.getMessage(), e);
                }
            }
            threads.assign(targetName, unit);
            if (device instanceof RbdBlockDevice rbd && rbd.exclusive()) {
                companions.add(SharedLuns.shareImage(definition.alua(), lun, rbd, unit, sharedObject, what, member));
            }
        } catch (IOException | RuntimeException e) {
            new RegisteredLun(targetName, lun, device, unit, companions).close();
            throw e;
        }
        unit.touches(touches);
        unit.readOnly(lun.readOnly());
        unit.sharedReadMin(sharedReadMin);
        RegisteredLun registered = new RegisteredLun(targetName, lun, device, unit, companions);
        open.add(registered);
        lunsByTarget.get(targetName).put(lun.id(), registered);
        target.scsi().add(unit);
        LOG.info(
                "target {} LUN {}: {} {} bytes, block size {}, physical block {}{}{}",
                targetName,
                lun.id(),
                lun.backing(),
                device.blockCount() * device.blockSize(),
                device.blockSize(),
                unit.physicalBlockSize(),
                lun.path() == null ? "" : " at " + lun.path(),
                lun.softThreshold() == LunDefinition.NO_THRESHOLD
                        ? ""
                        : ", soft threshold " + lun.softThreshold() + "%");
    }

    private void removeLun(String targetName, int lun) {
        ExportedTarget target = existing(targetName);
        LogicalUnit unit = target.scsi().remove(lun);
        if (unit == null) {
            throw new IllegalArgumentException("target " + targetName + " has no LUN " + lun);
        }
        RegisteredLun registered = lunsByTarget.get(targetName).remove(lun);
        TargetDefinition def = definitions.get(targetName);
        List<LunMap> maps = LunMaps.without(def.lunMaps(), lun);
        if (!maps.equals(def.lunMaps())) {
            definitions.put(targetName, def.withLunMaps(maps)); // a LUN added later under this number is not mapped
            target.scsi().masking(LunMaps.masking(maps));
        }
        try {
            reservationStores.discard(targetName, lun);
        } catch (IOException e) {
            LOG.error(
                    "target {} LUN {}: its saved persistent reservations could not be removed; a LUN added later"
                            + " under this number would take them up: {}",
                    targetName,
                    lun,
                    e.getMessage(),
                    e);
        }
        try {
            modePageStores.discard(targetName, lun);
        } catch (IOException e) {
            LOG.error(
                    "target {} LUN {}: its saved mode parameters could not be removed; a LUN added later under"
                            + " this number would take them up: {}",
                    targetName,
                    lun,
                    e.getMessage(),
                    e);
        }
        LOG.info(
                "target {} LUN {}: removed; closing its backing store once its commands have completed",
                targetName,
                lun);
        unit.retire(() -> control.execute(() -> {
            registered.close();
            open.remove(registered);
        }));
    }

    private void resizeLun(String targetName, int lun, long sizeBytes) throws IOException {
        existing(targetName);
        RegisteredLun registered = lunsByTarget.get(targetName).get(lun);
        if (registered == null) {
            throw new IllegalArgumentException("target " + targetName + " has no LUN " + lun);
        }
        LunDefinition grown = registered.definition().grownTo(sizeBytes);
        UnitThreadWaits.await(registered.unit().resize(grown.blockCount()), targetName, lun);
        RegisteredLun updated =
                new RegisteredLun(targetName, grown, registered.device(), registered.unit(), registered.companions());
        lunsByTarget.get(targetName).put(lun, updated);
        open.replaceAll(r -> r.unit() == registered.unit() ? updated : r);
        LOG.info(
                "target {} LUN {}: grown from {} to {} bytes{}",
                targetName,
                lun,
                registered.definition().sizeBytes(),
                sizeBytes,
                grown.path() == null
                        ? ""
                        : "; the config file must say the new size, or the next start" + " refuses " + grown.path()
                                + " as the wrong size");
    }

    private ExportedTarget existing(String targetName) {
        ExportedTarget target = directory.find(targetName);
        if (target == null) {
            throw new IllegalArgumentException("no target " + targetName);
        }
        return target;
    }

    /**
     * Gives up every shared RBD image this gateway writes, so another gateway takes it without fencing this one; a
     * clean stop does this while the LUNs' threads still run (the release drains the writes in flight on them).
     */
    public void releaseSharedImages(Duration limit) {
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (RegisteredLun lun : open) {
            ImageOwnership image = lun.imageOwnership();
            if (image != null && image.state() == ImageOwnership.State.OWNER) {
                releases.add(image.release());
            }
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn(
                    "stopping: not every shared image was given up in time ({}); the other gateways fence this one"
                            + " when they take it",
                    e.getMessage());
        }
    }

    /** Writes what every LUN's cache holds to its store, at most {@code limit}; while the LUNs' threads still run. */
    public void flushAll(Duration limit) {
        DeviceShutdown.flushAll(List.copyOf(open), limit);
    }

    /**
     * Stops taking changes, then flushes and closes every backing store. Call once nothing serves any more (the event
     * loops are stopped, after {@link #flushAll}): what a late write left in a cache becomes durable here.
     */
    @Override
    public void close() {
        provisioningChecks.close();
        control.shutdown();
        try {
            control.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (RegisteredLun lun : open) {
            lun.close();
        }
        open.clear();
    }

    /** Why an operation could not be applied, with the operation named. */
    static final class RegistryException extends RuntimeException {
        RegistryException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
