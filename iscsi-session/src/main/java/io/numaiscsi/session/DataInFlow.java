package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.ScsiStatus;

/**
 * Data-In of one connection's READs (RFC 7143 11.7): the residual against the expected length, then the data in
 * Data-In PDUs split by the initiator's MaxRecvDataSegmentLength and MaxBurstLength with the status in the last, or
 * placed by the transport its own way and followed by the status. On the connection's thread.
 */
final class DataInFlow {
    private final IscsiTransport transport;
    private final ResponseWriter out;
    private final SessionParameters params;

    DataInFlow(IscsiTransport transport, ResponseWriter out, SessionParameters params) {
        this.transport = transport;
        this.out = out;
        this.params = params;
    }

    /** A GOOD command's data-in: queued with the transport, which sends it its own way or through {@link #sendPdus}. */
    void send(IscsiCommand cmd, ByteBuf dataIn) {
        int produced = dataIn.readableBytes();
        int total = Math.min(produced, cmd.expectedLength);
        int kind = Residual.kind(produced, cmd.expectedLength);
        int residual = Residual.amount(produced, cmd.expectedLength);
        if (total == 0) {
            out.scsiResponse(cmd.itt, ScsiStatus.GOOD, null, 0, kind, residual, 0);
            return;
        }
        cmd.dataIn(total, kind, residual);
        transport.queueDataIn(cmd);
    }

    /** A READ's data in Data-In PDUs, split by MaxRecvDataSegmentLength and MaxBurstLength, the status in the last. */
    void sendPdus(IscsiCommand cmd) {
        ByteBuf dataIn = cmd.task.dataIn();
        int total = cmd.dataInLength;
        int maxSegment = params.initiatorMaxRecvDataSegmentLength();
        int maxBurst = params.maxBurstLength();
        int base = dataIn.readerIndex();
        // the kernel copies it into the socket on this thread, when the writes below are flushed
        LogicalUnit unit = cmd.task.unit();
        if (unit != null && transport.kernelCopiesData()) {
            unit.touches().touched(DataTouches.Kind.SOCKET_SEND, dataIn, base, total);
        }
        int offset = 0;
        int dataSN = 0;
        int burstLeft = maxBurst;
        while (offset < total) {
            int length = Math.min(Math.min(maxSegment, total - offset), burstLeft);
            boolean last = offset + length == total;
            burstLeft -= length;
            boolean endOfSequence = last || burstLeft == 0;
            out.dataIn(
                    cmd.lunRaw,
                    cmd.itt,
                    dataSN++,
                    offset,
                    dataIn.retainedSlice(base + offset, length),
                    endOfSequence,
                    last,
                    ScsiStatus.GOOD,
                    cmd.dataInResidualKind,
                    cmd.dataInResidual);
            if (burstLeft == 0) {
                burstLeft = maxBurst;
            }
            offset += length;
        }
    }

    /** A READ's status after data the transport placed itself. */
    void sendStatus(IscsiCommand cmd) {
        out.scsiResponse(cmd.itt, ScsiStatus.GOOD, null, 0, cmd.dataInResidualKind, cmd.dataInResidual, 0);
    }
}
