package io.numaiscsi.scsi;

import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.numa.DataTouches;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logical unit: a {@link BlockDevice} with its identity and SCSI state (modes, reservations, unit attentions, the
 * task set). That state belongs to the unit's {@link LunThread}: commands run there, and everything else (resets, a
 * lost nexus, retirement) is sent there as a message.
 */
public final class LogicalUnit {
    private static final Logger LOG = LoggerFactory.getLogger(LogicalUnit.class);
    static final int MAX_LUN = 16383;

    final int lun;
    final LunIdentity identity;
    final BlockDevice device;
    final int blockSize;
    /** Written on the unit's thread ({@link #resize}); read there and by the range checks of {@link CdbDecoder}. */
    volatile long blockCount;

    final BlockLimits limits;
    final ModePages modePages = new ModePages();
    final UnitAttentions unitAttentions = new UnitAttentions();
    final Reservations reservations = new Reservations(unitAttentions);
    final AtomicWriteLock atomicWriteLock = new AtomicWriteLock();
    final TaskSet tasks = new TaskSet();
    final CopyResults copyResults = new CopyResults();
    final Sanitize sanitize = new Sanitize(this);
    final ProvisioningThreshold provisioning;
    ByteBufAllocator alloc;
    /** The target it belongs to (set when added). */
    private ScsiTarget target;

    private volatile TargetPortGroups portGroups = TargetPortGroups.NONE;
    /** This gateway's access when the unit moves between gateways (explicit ALUA); null: the configured state. */
    private UnitOwnership ownership;
    /** The nexus whose SET TARGET PORT GROUPS is moving the unit now (it gets no unit attention for it); on the thread. */
    private ItNexus movedBy;
    /** The last change of this gateway's state was made by SET TARGET PORT GROUPS (REPORT TARGET PORT GROUPS says so). */
    private boolean movedByStpg;

    private LunThread thread = LunThread.CALLER;
    /** Removed from its target: commands that still reach it are answered LOGICAL UNIT NOT SUPPORTED. */
    private boolean retired;
    /** Reads of at least this many bytes ask the device for its own memory (no copy) on any transport. */
    private int sharedReadMin = Integer.MAX_VALUE;

    private DataTouches touches = DataTouches.singleNode();
    private volatile boolean readOnly;
    private final CommandCounters counters = new CommandCounters();

    public LogicalUnit(int lun, LunIdentity identity, BlockDevice device) {
        this(lun, identity, device, 0);
    }

    /**
     * A unit that reports {@code physicalBlockSize} as its physical block (READ CAPACITY (16) LBPPBE, the Block Limits
     * granularities), or the device's own when 0.
     *
     * @throws IllegalArgumentException a physical block that is not a power-of-two multiple of the logical block and
     *     of the device's physical block (the message is for an administrator)
     */
    public LogicalUnit(int lun, LunIdentity identity, BlockDevice device, int physicalBlockSize) {
        if (lun < 0 || lun > MAX_LUN) {
            throw new IllegalArgumentException("LUN must be 0.." + MAX_LUN + ": " + lun);
        }
        this.lun = lun;
        this.identity = Objects.requireNonNull(identity, "identity");
        this.device = Objects.requireNonNull(device, "device");
        this.blockSize = device.blockSize();
        if (blockSize != 512 && blockSize != 4096) {
            throw new IllegalArgumentException("block size must be 512 or 4096: " + blockSize);
        }
        this.blockCount = device.blockCount();
        if (blockCount <= 0) {
            throw new IllegalArgumentException("device has no blocks");
        }
        this.limits = BlockLimits.of(device, physicalBlockSize);
        this.provisioning = new ProvisioningThreshold(device.mappingResources());
    }

    /**
     * Reads of at least {@code bytes} take the device's own memory ({@link BlockDevice#readShared}) even when the
     * transport copies it out itself (TCP): one copy fewer for large reads, where copying costs most. Set before the
     * unit serves; default never.
     */
    public void sharedReadMin(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("sharedReadMin " + bytes);
        }
        sharedReadMin = bytes;
    }

    int sharedReadMin() {
        return sharedReadMin;
    }

    /** Where the bytes this unit's transports touch are recorded (the device records its own); set before it serves. */
    public void touches(DataTouches recorder) {
        touches = Objects.requireNonNull(recorder, "recorder");
    }

    public DataTouches touches() {
        return touches;
    }

    /** What this unit's commands did, for the metrics; counted by the transport (see {@link CommandCounters}). */
    public CommandCounters counters() {
        return counters;
    }

    public int lun() {
        return lun;
    }

    /**
     * Keeps this unit's persistent reservations in {@code store} while an initiator has APTPL active, and takes up the
     * state saved there (registrations, reservation, PRgeneration). Set before the unit serves.
     *
     * @throws IOException the store holds a state it cannot read (the message says where)
     */
    public void reservationStore(ReservationStore store) throws IOException {
        Objects.requireNonNull(store, "store");
        reservations.persistent.restore(store, store.load());
    }

    /**
     * Shares this unit's persistent reservations with the other gateways that export it, through {@code object} (see
     * {@link SharedReservations}), and takes up the state it holds. Set before the unit serves, after
     * {@link #reservationStore}.
     *
     * @throws IOException the object could not be read
     */
    public void sharedReservations(SharedReservations object) throws IOException {
        PeerReservationChanges.share(this, object);
    }

    /**
     * Keeps the mode parameters MODE SELECT saves (SP=1) in {@code store}, and makes those saved there current. Set
     * before the unit serves.
     *
     * @throws IOException the store holds parameters it cannot read (the message says where)
     */
    public void modePageStore(ModePageStore store) throws IOException {
        modePages.store(store, store.load());
    }

    /**
     * The unit moves between the target's gateways through {@code owner} (explicit ALUA): its state is this gateway's
     * state, SET TARGET PORT GROUPS moves it, and every change gives the unit's nexuses ASYMMETRIC ACCESS STATE CHANGED.
     * Set before the unit serves, after {@link #thread}.
     */
    public void ownership(UnitOwnership owner) {
        ownership = Objects.requireNonNull(owner, "owner");
        owner.events(new UnitOwnership.Events() {
            @Override
            public void changed() {
                thread.execute(LogicalUnit.this::ownershipChanged);
            }

            @Override
            public void lost(Runnable drained) {
                thread.execute(() -> {
                    if (tasks.size() > 0) {
                        LOG.info(
                                "LUN {}: this gateway was fenced; waiting for the writes among its executing commands ({})",
                                lun,
                                tasks.describe());
                    }
                    tasks.afterMediumChangesAdmitted(drained);
                });
            }
        });
    }

    /** The target this unit belongs to; null before it is attached. */
    ScsiTarget target() {
        return target;
    }

    UnitOwnership ownership() {
        return ownership;
    }

    private void ownershipChanged() {
        if (ownership.state() == TargetPortGroups.AccessState.ACTIVE_OPTIMIZED) {
            reservations.sync.forgetSharedVersion(); // read the shared state before the first decision as owner
        }
        movedByStpg = movedBy != null;
        unitAttentions.postToAllExcept(SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED, movedBy);
    }

    /** SET TARGET PORT GROUPS of {@code nexus} is moving the unit (null: it is done); on the unit's thread. */
    void movedBy(ItNexus nexus) {
        movedBy = nexus;
    }

    boolean movedByStpg() {
        return movedByStpg;
    }

    /** This gateway's asymmetric access state for the unit (ALUA); ACTIVE_OPTIMIZED without ALUA. */
    TargetPortGroups.AccessState accessState() {
        if (ownership != null) {
            return ownership.state();
        }
        return portGroups.configured() ? portGroups.local().state() : TargetPortGroups.AccessState.ACTIVE_OPTIMIZED;
    }

    /** The thread that owns this unit; set before it serves, by whoever runs the event threads. */
    public void thread(LunThread owner) {
        thread = Objects.requireNonNull(owner, "owner");
    }

    public LunThread thread() {
        return thread;
    }

    public LunIdentity identity() {
        return identity;
    }

    /** The physical block size this unit reports (READ CAPACITY (16), Block Limits VPD). */
    public int physicalBlockSize() {
        return limits.logicalPerPhysical * blockSize;
    }

    public BlockDevice device() {
        return device;
    }

    void attach(ScsiTarget owner, ByteBufAllocator allocator, TargetPortGroups groups) {
        if (alloc != null) {
            throw new IllegalStateException("LUN " + lun + " already belongs to a target");
        }
        target = owner;
        alloc = allocator;
        portGroups = groups;
        reservations.persistent.portGroups(groups);
    }

    /** Another gateway joined or left the target's groups; any thread. */
    void portGroupsChanged(TargetPortGroups groups) {
        thread.execute(() -> {
            portGroups = groups;
            reservations.persistent.portGroups(groups);
            unitAttentions.postToAllExcept(SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED, null);
        });
    }

    /** The target port groups of the target this unit belongs to (ALUA); {@link TargetPortGroups#NONE} before. */
    TargetPortGroups portGroups() {
        return portGroups;
    }

    /**
     * Admission on the unit's thread, in arrival order: a retired unit, a unit attention, an ALUA state that refuses the
     * command (standby, unavailable), a reservation conflict, a
     * sanitize in progress or failed, or software write protection ends the task here (null: it may run). INQUIRY,
     * REPORT LUNS and REQUEST SENSE pass a unit attention (SAM-5 5.14).
     */
    SenseReason admit(ScsiTask task) {
        if (retired) {
            return SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        }
        unitAttentions.touch(task.nexus);
        if (!reservations.refreshed()) {
            return SenseReason.LOGICAL_UNIT_NOT_READY; // a shared reservation state that cannot be read: fail closed
        }
        // (a change made through another gateway may have queued a unit attention for this nexus just now)
        int op = task.cdb[0] & 0xFF;
        if (op != 0x12 && op != 0xA0 && op != 0x03) {
            SenseReason ua = unitAttentions.poll(task.nexus);
            if (ua != null) {
                return ua;
            }
        }
        SenseReason refused = portGroups.admit(task.kind, accessState());
        if (refused != null) {
            return refused;
        }
        refused = reservations.check(task);
        if (refused == null) {
            refused = sanitize.admit(task.kind);
        }
        if (refused == null && modePages.softwareWriteProtect() && task.kind.writesMedium()) {
            refused = SenseReason.WRITE_PROTECTED; // SWP of the control mode page
        }
        return refused;
    }

    /**
     * Write-protects the medium: MODE SENSE reports WP and {@link ScsiTarget#prepare} refuses every command that changes
     * blocks with DATA PROTECT. Set before the unit serves.
     */
    public void readOnly(boolean on) {
        readOnly = on;
    }

    public boolean readOnly() {
        return readOnly;
    }

    /**
     * A thin provisioning soft threshold of {@code percent} of the unit's size (1..99; 0: none), see
     * {@link ProvisioningThreshold}; checked by {@link #checkProvisioning}. Set before the unit serves.
     *
     * @throws IllegalArgumentException a percentage out of range, or a store that reports no mapping resources
     */
    public void softThreshold(int percent) {
        provisioning.softPercent(percent);
    }

    /** Whether the store reports LBA mapping resources (a file or RAM store; not a block device or the null store). */
    public boolean reportsMappingResources() {
        return provisioning.supported();
    }

    /**
     * Reads the store's mapping resources here (a system call or two: call it from a timer, not an event thread) and
     * applies them on the unit's thread: the soft threshold, when reached, becomes a unit attention for every nexus.
     * Does nothing without a threshold.
     *
     * @throws IOException the store could not say
     */
    public void checkProvisioning() throws IOException {
        if (provisioning.softPercent() == 0) {
            return;
        }
        long[] sample = provisioning.sample(blockCount, blockSize);
        thread.execute(() -> provisioning.apply(sample[0], sample[1], this));
    }

    /** SAM LOGICAL UNIT RESET effects: SPC-2 reservation released, mode pages back to defaults. Any thread. */
    void reset(ItNexus requester) {
        thread.runHereOrQueue(() -> {
            reservations.reset();
            modePages.reset();
            // Every nexus learns of the reset, the requester included (libiscsi MultipathIO.Reset checks both paths).
            unitAttentions.postToAllExcept(SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED, null);
        });
    }

    /** The nexus is gone (session closed or reinstated): its SPC-2 reservation and unit attentions go. Any thread. */
    void nexusLost(ItNexus nexus) {
        thread.runHereOrQueue(() -> {
            reservations.nexusLost(nexus);
            unitAttentions.forget(nexus);
            copyResults.nexusLost(nexus);
        });
    }

    /**
     * Grows the unit while it serves. The device grows first (when it refuses, nothing changed); then, in one step on the
     * unit's thread, commands see the new block count and every nexus that has used the unit gets CAPACITY DATA HAS
     * CHANGED: a command that can see the new size is admitted after its attention is queued. The future completes after
     * that step. Any thread but the unit's; one resize at a time.
     */
    public CompletableFuture<Void> resize(long newBlockCount) throws IOException {
        device.resize(newBlockCount);
        long grown = device.blockCount();
        CompletableFuture<Void> applied = new CompletableFuture<>();
        thread.execute(() -> {
            blockCount = grown;
            unitAttentions.postToAllExcept(SenseReason.CAPACITY_DATA_HAS_CHANGED, null);
            applied.complete(null);
        });
        return applied;
    }

    /** A unit attention for every nexus that has used this unit. Any thread. */
    void postToAll(SenseReason reason) {
        thread.execute(() -> unitAttentions.postToAllExcept(reason, null));
    }

    /**
     * The LUN masking changed from {@code old} to {@code next}: every nexus that has used this unit and whose view
     * changed gets REPORTED LUNS DATA HAS CHANGED here and on every unit ({@code units} by LUN) it now sees. Completes
     * once all of them are queued. Any thread.
     */
    CompletableFuture<Void> announceViewChange(
            LunMasking old, LunMasking next, int maxUnit, IntFunction<LogicalUnit> units) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        thread.execute(() -> {
            List<CompletableFuture<Void>> posted = new ArrayList<>();
            for (ItNexus n : unitAttentions.known()) {
                if (LunMasking.sameView(old, next, n, maxUnit)) {
                    continue;
                }
                unitAttentions.post(n, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
                for (int[] view : next.numbersOf(n, maxUnit)) {
                    LogicalUnit seen = units.apply(view[1]);
                    if (seen != null && seen != this) {
                        posted.add(seen.postFor(n, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED));
                    }
                }
            }
            CompletableFuture.allOf(posted.toArray(CompletableFuture[]::new))
                    .whenComplete((v, e) -> done.complete(null));
        });
        return done;
    }

    /** A unit attention for {@code nexus}, whether or not it has used this unit yet; completes once queued. */
    private CompletableFuture<Void> postFor(ItNexus nexus, SenseReason reason) {
        CompletableFuture<Void> queued = new CompletableFuture<>();
        thread.execute(() -> {
            unitAttentions.post(nexus, reason);
            queued.complete(null);
        });
        return queued;
    }

    /** A unit attention for every nexus that has used this unit and {@code which} selects. Any thread. */
    void postTo(SenseReason reason, Predicate<ItNexus> which) {
        thread.execute(() -> unitAttentions.postToMatching(reason, which));
    }

    /**
     * Takes the unit out of service (its target no longer lists it): later commands that still reach it fail, and
     * {@code whenIdle} runs, on this unit's thread, once the tasks it is executing have completed. Any thread.
     */
    public void retire(Runnable whenIdle) {
        thread.execute(() -> {
            retired = true;
            tasks.whenEmpty(whenIdle);
        });
    }

    /** Whether the unit was taken out of service; on its thread. */
    boolean retired() {
        return retired;
    }

    /** Tasks executing now; on the unit's thread. */
    int executing() {
        return tasks.size();
    }
}
