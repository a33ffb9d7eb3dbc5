package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.proto.Lun;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.RejectReason;
import io.numaiscsi.proto.ScsiCommandHeader;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.scsi.ItNexus;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.ScsiStatus;
import io.numaiscsi.scsi.ScsiTarget;
import io.numaiscsi.scsi.SenseReason;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SCSI command data movement over one connection (RFC 7143 sections 4.2.4 and 11.3-11.8): immediate and
 * unsolicited data, R2T with MaxOutstandingR2T, Data-In split by the initiator's
 * MaxRecvDataSegmentLength with the status in the last Data-In, and residuals; the transport decides whether a
 * command's data travels in those PDUs or its own way ({@link IscsiTransport#queueDataIn}). Runs on the connection's
 * thread; the SCSI layer may complete on any thread and is brought back through the executor.
 */
final class CommandFlow implements IscsiCommand.Owner {
    private static final Logger LOG = LoggerFactory.getLogger(CommandFlow.class);
    /** Commands beyond the CmdSN window's depth: immediate ones, which the window does not bound. */
    private static final int IMMEDIATE_SLACK = 16;

    private final IscsiConnection connection;
    private final IscsiTransport transport;
    private final ScsiTarget scsi;
    private final LongSupplier nanoClock;
    private final CommandStages stages;
    private final ItNexus nexus;
    private final ResponseWriter out;
    private final IntObjectHashMap<IscsiCommand> byItt = new IntObjectHashMap<>();
    private final CommandPool commands;
    private final ScsiCommandHeader commandHeader = new ScsiCommandHeader();
    private final CommandCdb cdb = new CommandCdb();
    /**
     * Buffers held against the budgets. A write whose buffer does not fit is parked (its R2Ts wait), a READ that does
     * not fit, or finds the transport not taking output (a peer that does not read its socket), is parked too; both
     * run when buffers come back. A READ's bytes count while it executes: handed to the transport, they no longer do.
     */
    private final BufferCharges charges;

    private final DataOutFlow dataOut;
    private final DataInFlow dataIn;
    private final ArrayDeque<IscsiCommand> parkedReads = new ArrayDeque<>();
    private boolean holdParked;

    CommandFlow(
            IscsiConnection connection,
            ExportedTarget target,
            EventThreadRegistry threadStats,
            LongSupplier nanoClock,
            ItNexus nexus,
            SessionParameters params,
            int queueDepth,
            LimitsSettings limits,
            BufferBudget buffers) {
        this.nanoClock = nanoClock;
        this.connection = connection;
        this.transport = connection.transport();
        this.scsi = target.scsi();
        this.nexus = nexus;
        this.out = connection.out();
        Runnable retry = this::retryParked;
        this.charges = new BufferCharges(limits.writeBufferPerSession(), limits.dataInPerConnection(), buffers, () -> {
            try {
                transport.executor().execute(retry);
            } catch (RejectedExecutionException closed) {
                // the connection's thread is gone: nothing left to retry
            }
        });
        int maxR2T = params.maxOutstandingR2T();
        this.commands = new CommandPool(
                () -> {
                    IscsiCommand cmd = new IscsiCommand(this, maxR2T);
                    cmd.execution = () -> {
                        cmd.startedAt = nanoClock.getAsLong();
                        threadStats.current().executed();
                        LogicalUnit unit = cmd.task.unit();
                        if (unit != null) {
                            unit.counters().started();
                        }
                        scsi.execute(cmd.task);
                    };
                    return cmd;
                },
                queueDepth + IMMEDIATE_SLACK);
        this.dataOut = new DataOutFlow(this, connection, params, charges, nanoClock);
        this.dataIn = new DataInFlow(transport, out, params);
        this.stages = new CommandStages(threadStats, nanoClock);
    }

    /** Data-Out for one of this connection's writes. */
    void onDataOut(Pdu pdu) {
        dataOut.onDataOut(pdu);
    }

    /** The transport placed the data asked of it for task {@code itt}, up to {@code end}. */
    void dataOutArrived(int itt, int end) {
        dataOut.dataOutArrived(itt, end);
    }

    /** The transport could not move task {@code itt}'s data-out. */
    void dataOutFailed(int itt) {
        dataOut.dataOutFailed(itt);
    }

    void track(IscsiCommand cmd) {
        byItt.put(cmd.itt, cmd);
    }

    boolean holdingParked() {
        return holdParked;
    }

    // ---- SCSI Command ------------------------------------------------------------------------

    void onScsiCommand(Pdu pdu, int cmdSN) {
        ScsiCommandHeader h = commandHeader.wrap(pdu.bhs());
        int itt = h.initiatorTaskTag();
        if (byItt.containsKey(itt)) {
            if (PeerEventLogs.REJECTED_PDUS.permit()) {
                LOG.warn(
                        "rejecting SCSI command from {}: ITT 0x{} already in use (CmdSN {})",
                        transport.remoteAddress(),
                        Integer.toHexString(itt),
                        Integer.toUnsignedString(cmdSN));
            }
            out.reject(RejectReason.TASK_IN_PROGRESS.code(), pdu.bhs());
            return;
        }
        IscsiCommand cmd = commands.take();
        if (cmd == null) {
            out.scsiResponse(itt, ScsiStatus.TASK_SET_FULL, null, 0, Residual.NONE, 0, 0);
            return;
        }
        int edtl = (int) Math.min(h.expectedDataTransferLength(), Integer.MAX_VALUE);
        long lunRaw = h.lun();
        int lun = Lun.decode(lunRaw);
        cmd.start(itt, cmdSN, lunRaw, lun, edtl, h.immediate());
        cmd.receivedAt = nanoClock.getAsLong();
        // Immediate commands are outside the CmdSN window; counting them would move MaxCmdSN backwards.
        cmd.inWindow = !h.immediate();
        if (cmd.inWindow) {
            connection.window().taskStarted();
        }

        int cdbLength = cdb.assemble(pdu);
        if (cdbLength < 0) {
            cmd.task.init(
                    nexus,
                    lun,
                    pdu.bhs(),
                    ScsiCommandHeader.CDB_OFFSET,
                    ScsiCommandHeader.CDB_LENGTH,
                    edtl,
                    h.readBit(),
                    h.writeBit());
            cmd.task.fail(SenseReason.INVALID_FIELD_IN_CDB);
            respondWithoutData(cmd);
            return;
        }
        cmd.task.init(nexus, lun, cdb.bytes(), 0, cdbLength, edtl, h.readBit(), h.writeBit());
        // A transport that sends data-in from where it lies (RDMA Write) gains from reads that do not copy it out.
        cmd.task.sharedDataIn(transport.sendsDataInInPlace());
        if (!scsi.prepare(cmd.task)) {
            respondWithoutData(cmd);
            return;
        }
        int dataOutLength = cmd.task.dataOutLength();
        if (dataOutLength > 0) {
            // EDTL < SPDTL: the initiator sends only EDTL bytes; the SCSI layer writes the whole blocks it got and
            // the response reports the overflow (libiscsi iSCSIResiduals). EDTL > SPDTL: surplus data is dropped.
            cmd.scsiDataLength = dataOutLength;
            dataOut.start(cmd, pdu, h.finalBit(), h.writeBit() ? Math.min(edtl, dataOutLength) : 0);
            return;
        }
        byItt.put(itt, cmd);
        long readLength = cmd.task.readDataLength();
        if (readLength > 0 && (!parkedReads.isEmpty() || !transport.writable() || !charges.charge(readLength, false))) {
            cmd.readParked = true;
            parkedReads.add(cmd);
            return;
        }
        cmd.readCharge = readLength;
        execute(cmd);
    }

    /**
     * Runs the command on its LUN's thread, as the registry has it now: inline when that is this thread (or there is
     * no such LUN), else through that thread's queue.
     */
    void execute(IscsiCommand cmd) {
        cmd.readyAt = nanoClock.getAsLong();
        LogicalUnit unit = cmd.task.unit();
        if (unit == null) {
            cmd.execution.run();
        } else {
            unit.thread().runHereOrQueue(cmd.execution);
        }
    }

    /** Runs parked writes (full buffer, R2Ts) and parked READs, oldest first, while the budgets allow. */
    void retryParked() {
        boolean any = dataOut.retryParked();
        while (!holdParked
                && !parkedReads.isEmpty()
                && transport.writable()
                && charges.charge(parkedReads.peek().task.readDataLength(), false)) {
            IscsiCommand cmd = parkedReads.poll();
            cmd.readParked = false;
            cmd.readCharge = cmd.task.readDataLength();
            execute(cmd);
        }
        if (any) {
            out.flush();
        }
    }

    /**
     * The oldest command owing solicited Data-Out for longer than {@code timeoutNanos} (its R2Ts sent, no data
     * since), or null. Parked writes owe nothing yet.
     */
    IscsiCommand overdueDataOut(long now, long timeoutNanos) {
        for (IscsiCommand c : byItt.values()) {
            if (c.state == IscsiCommand.State.COLLECTING_DATA && !c.parked && now - c.lastDataAt > timeoutNanos) {
                return c;
            }
        }
        return null;
    }

    /** Bytes of READs charged to this connection, and READs parked; for tests. */
    long readBytesHeld() {
        return charges.readHeld();
    }

    /** Commands received and not yet answered; read racily by other threads for the admin's listing. */
    int inFlight() {
        return byItt.size();
    }

    int parkedReads() {
        return parkedReads.size();
    }

    /** Bytes of write buffers held against the budget, and writes parked; for tests. */
    long writeBytesHeld() {
        return charges.writeHeld();
    }

    int parkedWrites() {
        return dataOut.parkedWrites();
    }

    // ---- Data-Out ----------------------------------------------------------------------------

    /** Ends a command still collecting data with CHECK CONDITION; its later Data-Out PDUs are dropped. */
    void failCollecting(IscsiCommand cmd, SenseReason reason) {
        byItt.remove(cmd.itt);
        cmd.task.fail(reason);
        finish(cmd, Residual.NONE, 0, cmd.r2tSN);
        out.flush();
    }

    // ---- completion --------------------------------------------------------------------------

    @Override
    public void complete(IscsiCommand command) {
        if (transport.executor().inThread()) {
            onCompleted(command);
        } else {
            transport.executor().execute(command);
        }
    }

    @Override
    public long now() {
        return nanoClock.getAsLong();
    }

    @Override
    public void onCompleted(IscsiCommand cmd) {
        if (cmd.task.aborted() || cmd.state != IscsiCommand.State.EXECUTING) {
            retire(cmd);
            return;
        }
        stages.record(cmd);
        int status = cmd.task.status();
        ByteBuf data = cmd.task.dataIn();
        if (status == ScsiStatus.GOOD && data != null && data.isReadable()) {
            dataIn.send(cmd, data);
        } else {
            int moved = cmd.scsiDataLength; // data-out the CDB described for writes; no data for everything else
            int kind = status == ScsiStatus.GOOD ? Residual.kind(moved, cmd.expectedLength) : Residual.NONE;
            int residual = kind == Residual.NONE ? 0 : Residual.amount(moved, cmd.expectedLength);
            out.scsiResponse(
                    cmd.itt,
                    status,
                    cmd.task.senseBuffer(),
                    status == ScsiStatus.CHECK_CONDITION ? cmd.task.senseLength() : 0,
                    kind,
                    residual,
                    cmd.r2tSN);
        }
        out.flush();
        retire(cmd);
    }

    /** A READ's data in Data-In PDUs, split by MaxRecvDataSegmentLength and MaxBurstLength, the status in the last. */
    @Override
    public void sendDataInPdus(IscsiCommand cmd) {
        dataIn.sendPdus(cmd);
    }

    /** A READ's status after data the transport placed itself. */
    @Override
    public void sendReadStatus(IscsiCommand cmd) {
        dataIn.sendStatus(cmd);
    }

    @Override
    public void solicitWithR2ts(IscsiCommand cmd) {
        dataOut.solicitWithR2ts(cmd);
    }

    /** Status for a command that failed before any data moved (bad CDB, reservation conflict...). */
    private void respondWithoutData(IscsiCommand cmd) {
        finish(cmd, Residual.NONE, 0, 0);
    }

    /** Ends a command that never executed (refused while decoded, or its data never came). */
    private void finish(IscsiCommand cmd, int residualKind, int residual, int expDataSN) {
        LogicalUnit unit = cmd.task.unit();
        if (unit != null && cmd.task.status() == ScsiStatus.CHECK_CONDITION) {
            unit.counters().checkCondition(cmd.task);
        }
        out.scsiResponse(
                cmd.itt,
                cmd.task.status(),
                cmd.task.senseBuffer(),
                cmd.task.status() == ScsiStatus.CHECK_CONDITION ? cmd.task.senseLength() : 0,
                residualKind,
                residual,
                expDataSN);
        cmd.state = IscsiCommand.State.DONE;
        recycle(cmd);
    }

    private void retire(IscsiCommand cmd) {
        byItt.remove(cmd.itt);
        List<PendingTaskManagement> waiters = cmd.abortWaiters();
        recycle(cmd);
        for (int i = 0; i < waiters.size(); i++) { // no iterator: this runs once per command
            waiters.get(i).done();
        }
    }

    private void recycle(IscsiCommand cmd) {
        dataOut.unpark(cmd);
        if (cmd.readParked) {
            parkedReads.remove(cmd);
            cmd.readParked = false;
        }
        long writeCharged = cmd.writeCharge;
        long readCharged = cmd.readCharge;
        cmd.writeCharge = 0;
        cmd.readCharge = 0;
        cmd.releaseBuffers();
        cmd.state = IscsiCommand.State.FREE;
        cmd.abortWaiter = null;
        cmd.moreAbortWaiters = null;
        if (cmd.inWindow) {
            cmd.inWindow = false;
            connection.window().taskFinished();
        }
        commands.give(cmd);
        if (writeCharged + readCharged > 0) {
            charges.release(writeCharged, readCharged);
            retryParked();
        }
    }

    // ---- aborts (task management, connection loss) ---------------------------------------------

    IscsiCommand find(int itt) {
        return byItt.get(itt);
    }

    /**
     * Aborts one command. A command still waiting for data is dropped at once; one executing keeps its
     * slot until the SCSI layer completes it, and then says so to {@code waiter}. Returns the number of
     * completions {@code waiter} must wait for (0 or 1).
     */
    int abort(IscsiCommand cmd, PendingTaskManagement waiter) {
        if (cmd.state == IscsiCommand.State.COLLECTING_DATA || cmd.readParked) {
            byItt.remove(cmd.itt);
            recycle(cmd);
            return 0;
        }
        cmd.task.abort();
        return cmd.awaitedBy(waiter) ? 1 : 0;
    }

    /** Aborts every command on {@code lun} (or all when lun < 0); returns completions to wait for. */
    int abortAll(int lun, PendingTaskManagement waiter) {
        List<IscsiCommand> victims = new ArrayList<>();
        for (IscsiCommand c : byItt.values()) {
            if (lun < 0 || c.lun == lun) {
                victims.add(c);
            }
        }
        int waits = 0;
        boolean held = holdParked;
        holdParked = true; // a victim must not get R2Ts while the others are aborted
        try {
            for (IscsiCommand c : victims) {
                waits += abort(c, waiter);
            }
        } finally {
            holdParked = held;
        }
        retryParked();
        return waits;
    }

    void abortAllOnClose() {
        holdParked = true; // closed: nothing more to solicit
        abortAll(-1, null);
    }
}
