package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.proto.DataOutHeader;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.RejectReason;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.SenseReason;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collecting one connection's write data (RFC 7143 sections 4.2.4, 11.7, 11.8): immediate and unsolicited data, then
 * the rest from the transport ({@link IscsiTransport#getDataOut}): R2Ts up to MaxOutstandingR2T and MaxBurstLength with
 * Data-Out checked against the transfer (TTT, offset, DataSN, order), or the transport's own transfer (iSER's RDMA
 * Read); writes whose buffer does not fit the budget are parked until it does. When all data is in the command goes
 * back to {@link CommandFlow} to execute. On the connection's thread.
 */
final class DataOutFlow {
    private static final Logger LOG = LoggerFactory.getLogger(DataOutFlow.class);
    private static final int RESERVED = ResponseWriter.RESERVED_TAG;

    private final CommandFlow flow;
    private final IscsiTransport transport;
    private final SessionParameters params;
    private final ResponseWriter out;
    private final BufferCharges charges;
    private final LongSupplier nanoClock;
    private final DataOutHeader dataOutHeader = new DataOutHeader();
    /** Writes waiting for buffer budget, oldest first; their R2Ts wait with them. */
    private final ArrayDeque<IscsiCommand> parked = new ArrayDeque<>();

    private int nextTtt = 1;

    DataOutFlow(
            CommandFlow flow,
            IscsiConnection connection,
            SessionParameters params,
            BufferCharges charges,
            LongSupplier nanoClock) {
        this.flow = flow;
        this.transport = connection.transport();
        this.params = params;
        this.out = connection.out();
        this.charges = charges;
        this.nanoClock = nanoClock;
    }

    void start(IscsiCommand cmd, Pdu pdu, boolean finalBit, int toCollect) {
        cmd.state = IscsiCommand.State.COLLECTING_DATA;
        cmd.toCollect = toCollect;
        ByteBuf immediate = pdu.data();
        int immediateLength = immediate == null ? 0 : immediate.readableBytes();
        int unsolicited = immediateLength;
        if (!params.initialR2T() && !finalBit) {
            unsolicited = Math.min(cmd.expectedLength, params.firstBurstLength());
        }
        cmd.unsolicitedEnd = Math.min(unsolicited, cmd.toCollect);
        // Over budget: take the unsolicited part (at most FirstBurstLength) now, solicit the rest later.
        if (cmd.unsolicitedEnd < toCollect) {
            cmd.parked = !parked.isEmpty() || !charges.charge(toCollect, true);
        } else {
            charges.force(toCollect); // all of it is already on its way: bounded by FirstBurstLength
        }
        int size = cmd.parked ? cmd.unsolicitedEnd : toCollect;
        cmd.writeBuffer = transport.alloc().directBuffer(size, size);
        cmd.writeBuffer.writerIndex(size);
        cmd.lastDataAt = nanoClock.getAsLong();
        if (!cmd.parked) {
            cmd.writeCharge = toCollect;
        }
        cmd.ttt = nextTargetTransferTag();
        flow.track(cmd);
        if (immediateLength > 0) {
            acceptData(cmd, immediate, 0);
        }
        cmd.requestedEnd = Math.max(cmd.unsolicitedEnd, cmd.received);
        if (cmd.parked) {
            parked.add(cmd);
            return;
        }
        advance(cmd);
    }

    private int nextTargetTransferTag() {
        int t = nextTtt;
        nextTtt = nextTtt == 0x7fffffff ? 1 : nextTtt + 1;
        return t;
    }

    /** Copies the part of a data segment that lies inside the SCSI transfer; counts it if it is in order. */
    private void acceptData(IscsiCommand cmd, ByteBuf data, int offset) {
        cmd.lastDataAt = nanoClock.getAsLong();
        int length = data.readableBytes();
        int end = Math.min(offset + length, cmd.writeBuffer.writerIndex()); // a parked write holds only its first part
        if (end > offset) {
            cmd.writeBuffer.setBytes(offset, data, data.readerIndex(), end - offset);
            touched(cmd, data, offset, end - offset);
        }
        if (offset <= cmd.received && end > cmd.received) {
            cmd.received = end;
        }
    }

    /** The kernel's copy into the receive buffer (a device counts its own), and ours into the write buffer. */
    private void touched(IscsiCommand cmd, ByteBuf data, int offset, int length) {
        LogicalUnit unit = cmd.task.unit();
        if (unit == null) {
            return;
        }
        DataTouches touches = unit.touches();
        if (transport.kernelCopiesData()) {
            touches.touched(DataTouches.Kind.SOCKET_RECEIVE, data, data.readerIndex(), length);
        }
        touches.touched(DataTouches.Kind.COPY, data, data.readerIndex(), length);
        touches.touched(DataTouches.Kind.COPY, cmd.writeBuffer, offset, length);
    }

    /** Asks the transport for data not yet asked for, or starts execution once all data is in. */
    void advance(IscsiCommand cmd) {
        if (cmd.parked) {
            return; // its unsolicited data is kept; R2Ts and execution wait for budget
        }
        cmd.retireCompletedR2ts();
        if (cmd.allDataReceived()) {
            cmd.state = IscsiCommand.State.EXECUTING;
            ByteBuf data = cmd.writeBuffer;
            cmd.writeBuffer = null;
            cmd.task.dataOut(data);
            flow.execute(cmd);
            return;
        }
        if (cmd.requestedEnd < cmd.toCollect) {
            transport.getDataOut(cmd);
        }
    }

    /** R2Ts for what comes next, up to MaxOutstandingR2T of MaxBurstLength each (the TCP way to get data-out). */
    void solicitWithR2ts(IscsiCommand cmd) {
        while (cmd.outstandingR2t < params.maxOutstandingR2T() && cmd.requestedEnd < cmd.toCollect) {
            int length = Math.min(params.maxBurstLength(), cmd.toCollect - cmd.requestedEnd);
            out.r2t(cmd.lunRaw, cmd.itt, cmd.ttt, cmd.r2tSN++, cmd.requestedEnd, length);
            cmd.lastDataAt = nanoClock.getAsLong();
            cmd.pushR2t(cmd.requestedEnd + length);
            cmd.requestedEnd += length;
        }
    }

    /** The transport's own transfer brought the data asked of it, up to {@code end}. */
    void dataOutArrived(int itt, int end) {
        IscsiCommand cmd = flow.find(itt);
        if (cmd == null || cmd.state != IscsiCommand.State.COLLECTING_DATA) {
            return; // aborted while the transport was moving its data
        }
        cmd.received = Math.max(cmd.received, end);
        advance(cmd);
    }

    /** The transport's own transfer failed (the connection is going down). */
    void dataOutFailed(int itt) {
        IscsiCommand cmd = flow.find(itt);
        if (cmd != null && cmd.state == IscsiCommand.State.COLLECTING_DATA) {
            flow.failCollecting(cmd, SenseReason.DATA_PHASE_ERROR);
        }
    }

    void onDataOut(Pdu pdu) {
        DataOutHeader h = dataOutHeader.wrap(pdu.bhs());
        int itt = h.initiatorTaskTag();
        int ttt = h.targetTransferTag();
        IscsiCommand cmd = flow.find(itt);
        if (cmd == null || cmd.state != IscsiCommand.State.COLLECTING_DATA) {
            boolean issuedByUs = ttt != RESERVED && ttt > 0 && ttt < nextTtt;
            if (ttt != RESERVED && cmd == null && !issuedByUs) {
                if (PeerEventLogs.REJECTED_PDUS.permit()) {
                    LOG.warn(
                            "rejecting Data-Out from {}: no task for ITT 0x{} TTT 0x{}",
                            transport.remoteAddress(),
                            Integer.toHexString(itt),
                            Integer.toHexString(ttt));
                }
                out.reject(RejectReason.INVALID_PDU_FIELD.code(), pdu.bhs());
            }
            return; // data for a command already answered (failed, aborted) or surplus data: dropped
        }
        ByteBuf data = pdu.data();
        int length = data == null ? 0 : data.readableBytes();
        int offset = h.bufferOffset();
        if ((ttt != RESERVED && ttt != cmd.ttt)
                || offset < 0
                || (long) offset + length > cmd.expectedLength
                || (ttt == RESERVED && offset + length > Math.max(cmd.unsolicitedEnd, params.firstBurstLength()))) {
            if (PeerEventLogs.REJECTED_PDUS.permit()) {
                LOG.warn(
                        "rejecting Data-Out from {}: ITT 0x{} TTT 0x{} offset {} length {} outside the transfer "
                                + "(EDTL {}, FirstBurstLength {})",
                        transport.remoteAddress(),
                        Integer.toHexString(itt),
                        Integer.toHexString(ttt),
                        offset,
                        length,
                        cmd.expectedLength,
                        params.firstBurstLength());
            }
            out.reject(RejectReason.INVALID_PDU_FIELD.code(), pdu.bhs());
            return;
        }
        int expectedDataSN = ttt == RESERVED ? cmd.unsolicitedDataSN++ : cmd.solicitedDataSN++;
        if (h.dataSN() != expectedDataSN) {
            // ERL 0 cannot recover a lost or reordered Data-Out: fail the command, keep the connection.
            if (PeerEventLogs.REJECTED_PDUS.permit()) {
                LOG.warn(
                        "aborting command ITT 0x{} from {}: Data-Out DataSN {} where {} was expected (offset {}, length {})",
                        Integer.toHexString(itt),
                        transport.remoteAddress(),
                        Integer.toUnsignedString(h.dataSN()),
                        expectedDataSN,
                        offset,
                        length);
            }
            flow.failCollecting(cmd, SenseReason.DATA_PHASE_ERROR);
            return;
        }
        if (offset > cmd.received) {
            if (PeerEventLogs.REJECTED_PDUS.permit()) {
                LOG.warn(
                        "aborting command ITT 0x{} from {}: Data-Out offset {} leaves a gap after {} (DataPDUInOrder=Yes)",
                        Integer.toHexString(itt),
                        transport.remoteAddress(),
                        offset,
                        cmd.received);
            }
            flow.failCollecting(cmd, SenseReason.DATA_PHASE_ERROR);
            return;
        }
        if (length > 0) {
            acceptData(cmd, data, offset);
        }
        advance(cmd);
    }

    /** Gives parked writes their full buffer and R2Ts, oldest first, while the budget allows; true if any moved. */
    boolean retryParked() {
        boolean any = false;
        while (!flow.holdingParked() && !parked.isEmpty() && charges.charge(parked.peek().toCollect, true)) {
            IscsiCommand cmd = parked.poll();
            cmd.parked = false;
            ByteBuf full = transport.alloc().directBuffer(cmd.toCollect, cmd.toCollect);
            full.writerIndex(cmd.toCollect);
            full.setBytes(0, cmd.writeBuffer, 0, cmd.received); // DataPDUInOrder: nothing lies beyond received
            cmd.writeBuffer.release();
            cmd.writeBuffer = full;
            cmd.writeCharge = cmd.toCollect;
            cmd.requestedEnd = Math.max(cmd.unsolicitedEnd, cmd.received);
            cmd.lastDataAt = nanoClock.getAsLong();
            advance(cmd);
            any = true;
        }
        return any;
    }

    /** A command leaving while parked (aborted, connection closed) leaves the queue. */
    void unpark(IscsiCommand cmd) {
        if (cmd.parked) {
            parked.remove(cmd);
            cmd.parked = false;
        }
    }

    int parkedWrites() {
        return parked.size();
    }
}
