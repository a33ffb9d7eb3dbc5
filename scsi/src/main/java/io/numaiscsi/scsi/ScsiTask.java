package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.SharedRead;
import java.util.Arrays;
import java.util.Objects;

/**
 * One SCSI command in flight (SPDK's spdk_scsi_task). Reused: {@link #recycle()} then
 * {@link #init} for the next command. The iSCSI layer embeds one per command slot.
 */
public final class ScsiTask {
    static final int MAX_CDB_LENGTH = 260;

    final ScsiTaskListener listener;
    final byte[] cdb = new byte[MAX_CDB_LENGTH];
    private final byte[] sense = new byte[SenseData.MAX_LENGTH];
    final IoStep io = new IoStep();

    int cdbLength;
    ItNexus nexus;
    int lun;
    int expectedDataTransferLength;
    boolean readBit;
    boolean writeBit;

    // bound by prepare()
    LogicalUnit unit;
    CommandKind kind;
    long lba;
    long blocks;
    boolean fua;
    int byteCheck;
    boolean unmapBit;
    boolean noDataOutBuffer;
    int allocationLength;
    int dataOutLength;

    // multi-step execution state (SbcCommands)
    /** Where the command goes on when its device request completes; null before it issues one. */
    SbcContinuation continuation;

    long cursor;
    long end;
    ByteBuf scratch;

    private int status;
    private int senseLength;
    ByteBuf dataIn;
    ByteBuf dataOut;
    private volatile boolean aborted;
    // task set membership and aborts waited for (TaskSet), touched only on the unit's thread
    ScsiTask prevInSet;
    ScsiTask nextInSet;
    boolean inSet;
    /** Counted by the unit's {@link AtomicWriteLock} as a plain write in flight until it finishes. */
    boolean plainWrite;
    /** The task that aborted this one (PREEMPT AND ABORT) and completes when this one leaves the task set. */
    ScsiTask abortWaiter;

    int abortsPending;
    /** How many drains its unit's task set had begun when the task entered ({@link TaskSet#afterTasksOf}). */
    int enteredAtDrain;

    private Object transportContext;
    /** The transport sends data-in straight from device memory (iSER's RDMA Write), so no read needs a copy. */
    private boolean sharedDataIn;

    public ScsiTask(ScsiTaskListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Starts a new command; copies the CDB (up to 260 bytes). */
    public void init(
            ItNexus nexus,
            int lun,
            ByteBuf cdbSource,
            int cdbIndex,
            int cdbLength,
            int expectedDataTransferLength,
            boolean readBit,
            boolean writeBit) {
        if (cdbLength < 1 || cdbLength > MAX_CDB_LENGTH) {
            throw new IllegalArgumentException("CDB length " + cdbLength);
        }
        this.nexus = Objects.requireNonNull(nexus, "nexus");
        this.lun = lun;
        cdbSource.getBytes(cdbIndex, cdb, 0, cdbLength);
        if (cdbLength < 16) {
            Arrays.fill(cdb, cdbLength, 16, (byte) 0);
        }
        this.cdbLength = cdbLength;
        this.expectedDataTransferLength = expectedDataTransferLength;
        this.readBit = readBit;
        this.writeBit = writeBit;
        unit = null;
        kind = null;
        lba = 0;
        blocks = 0;
        fua = false;
        byteCheck = 0;
        unmapBit = false;
        noDataOutBuffer = false;
        allocationLength = 0;
        dataOutLength = 0;
        continuation = null;
        cursor = 0;
        end = 0;
        status = ScsiStatus.GOOD;
        senseLength = 0;
        aborted = false;
        abortWaiter = null;
        abortsPending = 0;
    }

    public int lun() {
        return lun;
    }

    /** The logical unit prepare() bound this task to; null for a LUN that does not exist. */
    public LogicalUnit unit() {
        return unit;
    }

    public ItNexus nexus() {
        return nexus;
    }

    /** Operation code of the current CDB. */
    public int opcode() {
        return cdb[0] & 0xFF;
    }

    public int expectedDataTransferLength() {
        return expectedDataTransferLength;
    }

    /** After a successful prepare(): bytes the transport must collect before execute() (0 = none). */
    public int dataOutLength() {
        return dataOutLength;
    }

    /** After a successful prepare(): bytes of a READ's data-in (the buffer it fills); 0 for every other command. */
    public long readDataLength() {
        return kind == CommandKind.READ && unit != null ? blocks * unit.blockSize : 0;
    }

    /** The transport hands over the collected write data; ownership moves to the task. */
    public void dataOut(ByteBuf collected) {
        if (dataOut != null) {
            dataOut.release();
        }
        dataOut = collected;
    }

    /** SAM status byte ({@link ScsiStatus}). */
    public int status() {
        return status;
    }

    /** Data for a read-type command, or null; already clipped to the CDB's allocation length. */
    public ByteBuf dataIn() {
        return dataIn;
    }

    public byte[] senseBuffer() {
        return sense;
    }

    public int senseLength() {
        return senseLength;
    }

    /** Completes the task with {@code reason}'s status and sense (does not call the listener). */
    public void fail(SenseReason reason) {
        fail(reason, 0, false);
    }

    void fail(SenseReason reason, long information, boolean informationValid) {
        fail(reason, information, informationValid, SenseData.NO_FIELD);
    }

    private void fail(SenseReason reason, long information, boolean informationValid, int keySpecific) {
        releaseDataIn();
        status = reason.status();
        if (reason.hasSense()) {
            boolean descriptor = unit != null && unit.modePages.descriptorSense();
            senseLength =
                    SenseData.encodeKeySpecific(sense, reason, descriptor, information, informationValid, keySpecific);
        } else {
            senseLength = 0;
        }
    }

    /** Transport-driven abort: execution still completes, the transport discards the result. */
    public void abort() {
        aborted = true;
    }

    public boolean aborted() {
        return aborted;
    }

    /**
     * Whether the transport moves data-in straight out of device memory (RDMA Write from registered memory): READs then
     * ask the device for a buffer over its own memory instead of a copy. Stays set across {@link #init}.
     */
    public void sharedDataIn(boolean shared) {
        sharedDataIn = shared;
    }

    boolean sharedDataIn() {
        return sharedDataIn;
    }

    public Object transportContext() {
        return transportContext;
    }

    public void transportContext(Object o) {
        transportContext = o;
    }

    /** Releases dataIn/dataOut buffers; call before init() reuses the task. */
    public void recycle() {
        releaseDataIn();
        if (dataOut != null) {
            dataOut.release();
            dataOut = null;
        }
        releaseScratch();
        unit = null;
        nexus = null;
    }

    // ---- completion, used by the command classes ----

    void completeGood() {
        status = ScsiStatus.GOOD;
        senseLength = 0;
        releaseScratch();
        finished();
    }

    /** PRE-FETCH: the range is in the cache. */
    void completeConditionMet() {
        status = ScsiStatus.CONDITION_MET;
        senseLength = 0;
        releaseScratch();
        finished();
    }

    void completeFailed(SenseReason reason) {
        completeFailed(reason, 0, false);
    }

    /** Fails with a sense-key specific field pointer naming CDB byte {@code cdbField}. */
    void completeFailedAtCdbField(SenseReason reason, int cdbField) {
        completeFailedWithKeySpecific(reason, SenseData.cdbFieldPointer(cdbField));
    }

    /** Fails with the SENSE KEY SPECIFIC bytes {@code keySpecific} (see {@link SenseData#parameterFieldPointer}). */
    void completeFailedWithKeySpecific(SenseReason reason, int keySpecific) {
        fail(reason, 0, false, keySpecific);
        releaseScratch();
        finished();
    }

    /** Fails with a sense-key specific PROGRESS INDICATION (a command refused while a sanitize runs). */
    void completeFailedWithProgress(SenseReason reason, int progress) {
        releaseDataIn();
        status = reason.status();
        boolean descriptor = unit != null && unit.modePages.descriptorSense();
        senseLength = SenseData.encodeProgress(sense, reason, descriptor, progress);
        releaseScratch();
        finished();
    }

    void completeFailed(SenseReason reason, long information, boolean informationValid) {
        fail(reason, information, informationValid);
        releaseScratch();
        finished();
    }

    /** Leaves the unit's task set (on its thread: every completion is brought there), then tells the transport. */
    private void finished() {
        TaskSet set = inSet ? unit.tasks : null;
        ScsiTask waiter = set != null ? set.leave(this) : null;
        LogicalUnit plainWriteOf = plainWrite ? unit : null;
        plainWrite = false;
        listener.taskComplete(this);
        if (waiter != null) {
            waiter.completeGood();
        }
        if (plainWriteOf != null) {
            SbcCommands.plainWriteDone(plainWriteOf);
        }
        if (set != null) {
            set.afterLeave();
        }
    }

    void releaseScratch() {
        if (scratch != null) {
            scratch.release();
            scratch = null;
        }
    }

    private void releaseDataIn() {
        if (dataIn != null) {
            dataIn.release();
            dataIn = null;
        }
    }

    /**
     * The task's one reusable completion object: no allocation per I/O. A device completing on another thread (a backing
     * I/O pool, a cache node worker) is brought back to the unit's thread before the command goes on.
     */
    final class IoStep implements IoCompletion, SharedRead, Runnable {
        private IoStatus handedOver;

        @Override
        public void ioComplete(IoStatus ioStatus) {
            LunThread home = unit.thread();
            if (home.isCurrent()) {
                SbcCommands.ioComplete(ScsiTask.this, ioStatus);
            } else {
                handedOver = ioStatus;
                home.execute(this);
            }
        }

        @Override
        public void sharedReadDone(IoStatus ioStatus, ByteBuf data) {
            releaseDataIn();
            dataIn = data;
            ioComplete(ioStatus);
        }

        @Override
        public void run() {
            IoStatus s = handedOver;
            handedOver = null;
            SbcCommands.ioComplete(ScsiTask.this, s);
        }
    }
}
