package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.proto.transport.DataInTask;
import io.numaiscsi.proto.transport.DataOutTask;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.ScsiTask;
import io.numaiscsi.scsi.ScsiTaskListener;
import java.util.ArrayList;
import java.util.List;

/**
 * One SCSI command of a session (SPDK's iscsi task embedding the scsi task). Pooled per connection and
 * reused: it carries the Data-Out bookkeeping for writes, is what the transport sees of a command's data
 * ({@link DataInTask}, {@link DataOutTask}), and hands completions back to the connection's thread without
 * allocating.
 */
final class IscsiCommand implements ScsiTaskListener, Runnable, DataInTask, DataOutTask {
    enum State {
        FREE,
        COLLECTING_DATA,
        EXECUTING,
        DONE
    }

    final ScsiTask task = new ScsiTask(this);
    private final Owner owner;

    State state = State.FREE;
    int itt;
    int cmdSN;
    long lunRaw;
    int lun;
    int expectedLength;
    boolean immediate;
    /** Counted as outstanding in the CmdSN window (non-immediate commands only). */
    boolean inWindow;

    // Write (Data-Out) bookkeeping, in bytes of the data-out buffer.
    ByteBuf writeBuffer;
    int scsiDataLength; // data-out length the CDB asks for (SPDTL)
    int toCollect; // what the initiator will send: SPDTL clipped to EDTL
    int received; // contiguous bytes received from offset 0
    int unsolicitedEnd; // first offset that needs an R2T
    int requestedEnd; // first offset not yet asked for (by R2T or by the transport)
    int outstandingR2t;
    int r2tSN;
    int unsolicitedDataSN; // DataSN expected next in the unsolicited sequence
    int solicitedDataSN; // DataSN expected next in the oldest outstanding R2T's sequence
    int ttt;
    /** Waiting for write-buffer budget: holds only its unsolicited part, no R2T issued yet. */
    boolean parked;
    /** Bytes of the connection's write-buffer budget this command holds (0 while parked). */
    int writeCharge;
    /** Bytes of the connection's read budget this READ holds while it executes (0 while parked). */
    long readCharge;
    /** A READ waiting for read budget or for the transport to drain its output. */
    boolean readParked;
    /** When this command last got Data-Out or an R2T (connection clock): for limits.data-out-timeout. */
    long lastDataAt;

    final int[] r2tEnds; // end offsets of outstanding R2Ts, oldest first
    int r2tHead;

    // Read (Data-In) to send: bytes of the task's data-in, and the residual its status reports.
    int dataInLength;
    int dataInResidualKind;
    int dataInResidual;

    // Stage timestamps (nanoseconds from the connection's clock): command PDU received, ready to run, started,
    // SCSI-completed.
    long receivedAt;
    long readyAt;
    volatile long startedAt;
    volatile long completedAt;

    /** Runs the task on its LUN's event thread; made once per pooled command, not per I/O. */
    Runnable execution;

    // Task management: the TMF that waits for this command to finish, if any.
    PendingTaskManagement abortWaiter;
    /** Further TMFs aborting the same command (an ABORT TASK, then a LUN RESET); null until needed. */
    List<PendingTaskManagement> moreAbortWaiters;

    IscsiCommand(Owner owner, int maxOutstandingR2t) {
        this.owner = owner;
        this.r2tEnds = new int[Math.max(1, maxOutstandingR2t)];
    }

    void start(int itt, int cmdSN, long lunRaw, int lun, int expectedLength, boolean immediate) {
        this.state = State.EXECUTING;
        this.itt = itt;
        this.cmdSN = cmdSN;
        this.lunRaw = lunRaw;
        this.lun = lun;
        this.expectedLength = expectedLength;
        this.immediate = immediate;
        this.writeBuffer = null;
        this.toCollect = 0;
        this.received = 0;
        this.unsolicitedEnd = 0;
        this.requestedEnd = 0;
        this.outstandingR2t = 0;
        this.r2tSN = 0;
        this.unsolicitedDataSN = 0;
        this.solicitedDataSN = 0;
        this.scsiDataLength = 0;
        this.ttt = ResponseWriter.RESERVED_TAG;
        this.parked = false;
        this.writeCharge = 0;
        this.readCharge = 0;
        this.readParked = false;
        this.lastDataAt = 0;
        this.r2tHead = 0;
        this.dataInLength = 0;
        this.abortWaiter = null;
        this.moreAbortWaiters = null;
    }

    /**
     * {@code waiter} (may be null) waits for this aborted command to complete; true when it was added, false when it
     * is null or waits already. Every TMF that aborts a command still executing waits for it (none is forgotten).
     */
    boolean awaitedBy(PendingTaskManagement waiter) {
        if (waiter == null
                || waiter == abortWaiter
                || (moreAbortWaiters != null && moreAbortWaiters.contains(waiter))) {
            return false;
        }
        if (abortWaiter == null) {
            abortWaiter = waiter;
        } else {
            if (moreAbortWaiters == null) {
                moreAbortWaiters = new ArrayList<>(2);
            }
            moreAbortWaiters.add(waiter);
        }
        return true;
    }

    /** The TMFs waiting for this command, to tell once it is retired. */
    List<PendingTaskManagement> abortWaiters() {
        if (abortWaiter == null) {
            return List.of();
        }
        if (moreAbortWaiters == null) {
            return List.of(abortWaiter);
        }
        List<PendingTaskManagement> all = new ArrayList<>(moreAbortWaiters.size() + 1);
        all.add(abortWaiter);
        all.addAll(moreAbortWaiters);
        return all;
    }

    void pushR2t(int end) {
        r2tEnds[(r2tHead + outstandingR2t) % r2tEnds.length] = end;
        outstandingR2t++;
    }

    /** Retires R2Ts whose data has fully arrived. */
    void retireCompletedR2ts() {
        while (outstandingR2t > 0 && received >= r2tEnds[r2tHead]) {
            r2tHead = (r2tHead + 1) % r2tEnds.length;
            outstandingR2t--;
            solicitedDataSN = 0; // each R2T's Data-Out sequence numbers its PDUs from 0
        }
    }

    boolean allDataReceived() {
        return received >= toCollect;
    }

    void releaseBuffers() {
        if (writeBuffer != null) {
            writeBuffer.release();
            writeBuffer = null;
        }
        task.recycle();
    }

    /** Called by the SCSI layer on any thread. */
    @Override
    public void taskComplete(ScsiTask completed) {
        long now = owner.now();
        completedAt = now;
        LogicalUnit unit = completed.unit();
        if (unit != null) { // on the unit's thread, the counters' one writer
            unit.counters().completed(completed, now - receivedAt);
        }
        owner.complete(this);
    }

    /** Runs on the connection's thread after a hop from the completing thread. */
    @Override
    public void run() {
        owner.onCompleted(this);
    }

    // ---- what the transport sees (DataInTask, DataOutTask), on the connection's thread ----

    @Override
    public int itt() {
        return itt;
    }

    /** The READ's data-in to send: {@code length} bytes, and the residual its status reports. */
    void dataIn(int length, int residualKind, int residual) {
        dataInLength = length;
        dataInResidualKind = residualKind;
        dataInResidual = residual;
    }

    @Override
    public ByteBuf data() {
        return task.dataIn();
    }

    @Override
    public int length() {
        return dataInLength;
    }

    @Override
    public void sendDataInPdus() {
        owner.sendDataInPdus(this);
    }

    @Override
    public void sendStatus() {
        owner.sendReadStatus(this);
    }

    @Override
    public ByteBuf buffer() {
        return writeBuffer;
    }

    @Override
    public int unsolicitedEnd() {
        return unsolicitedEnd;
    }

    @Override
    public int received() {
        return received;
    }

    @Override
    public int requestedEnd() {
        return requestedEnd;
    }

    @Override
    public int end() {
        return toCollect;
    }

    @Override
    public void requested(int end) {
        requestedEnd = end;
    }

    @Override
    public void solicitWithR2ts() {
        owner.solicitWithR2ts(this);
    }

    /** The connection side of a command: its completion, and its data in iSCSI's own PDUs. */
    interface Owner {
        /** Any thread: arrange for {@link #onCompleted} on the connection's thread. */
        void complete(IscsiCommand command);

        void onCompleted(IscsiCommand command);

        long now();

        /** {@link DataInTask#sendDataInPdus()}. */
        void sendDataInPdus(IscsiCommand command);

        /** {@link DataInTask#sendStatus()}. */
        void sendReadStatus(IscsiCommand command);

        /** {@link DataOutTask#solicitWithR2ts()}. */
        void solicitWithR2ts(IscsiCommand command);
    }
}
