package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.proto.AsyncMessageHeader;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.CmdSnWindow;
import io.numaiscsi.proto.DataInHeader;
import io.numaiscsi.proto.LogoutResponseHeader;
import io.numaiscsi.proto.NopInHeader;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.R2tHeader;
import io.numaiscsi.proto.RejectHeader;
import io.numaiscsi.proto.ScsiResponseHeader;
import io.numaiscsi.proto.TargetBhsFlyweight;
import io.numaiscsi.proto.TaskMgmtResponseHeader;
import io.numaiscsi.proto.TextResponseHeader;
import io.numaiscsi.proto.transport.IscsiTransport;

/**
 * Builds and queues every target PDU of one connection, owning its StatSN. Flyweights are reused;
 * the only allocation per PDU is the pooled 48-byte header; the transport frames it. SCSI Responses go
 * through {@link IscsiTransport#queueStatus}, everything else through {@link IscsiTransport#sendPdu}.
 */
final class ResponseWriter {
    static final int RESERVED_TAG = Bhs.RESERVED_TAG;

    private final IscsiTransport transport;
    private final ScsiResponseHeader scsiResponse = new ScsiResponseHeader();
    private final DataInHeader dataIn = new DataInHeader();
    private final R2tHeader r2t = new R2tHeader();
    private final NopInHeader nopIn = new NopInHeader();
    private final TaskMgmtResponseHeader tmfResponse = new TaskMgmtResponseHeader();
    private final TextResponseHeader textResponse = new TextResponseHeader();
    private final LogoutResponseHeader logoutResponse = new LogoutResponseHeader();
    private final RejectHeader reject = new RejectHeader();
    private final AsyncMessageHeader asyncMessage = new AsyncMessageHeader();
    private CmdSnWindow window;
    private int statSN;

    ResponseWriter(IscsiTransport transport) {
        this.transport = transport;
    }

    void startFullFeature(CmdSnWindow window, int nextStatSN) {
        this.window = window;
        this.statSN = nextStatSN;
    }

    int statSN() {
        return statSN;
    }

    ByteBuf newHeader() {
        return transport.alloc().buffer(Pdu.BHS_LENGTH, Pdu.BHS_LENGTH).writeZero(Pdu.BHS_LENGTH);
    }

    void send(ByteBuf bhs, ByteBuf data) {
        transport.sendPdu(bhs, data);
    }

    void flush() {
        transport.flush();
    }

    /** SCSI Response; sense (may be null) is sent with its 2-byte SenseLength prefix. */
    void scsiResponse(
            int itt, int status, byte[] sense, int senseLength, int residualFlag, int residual, int expDataSN) {
        ByteBuf bhs = newHeader();
        scsiResponse
                .wrap(bhs)
                .init()
                .initiatorTaskTag(itt)
                .response(0)
                .status(status)
                .expDataSN(expDataSN);
        numbered(scsiResponse, statSN++);
        applyResidual(residualFlag, residual);
        ByteBuf data = null;
        if (senseLength > 0) {
            data = transport.alloc().buffer(2 + senseLength);
            data.writeShort(senseLength).writeBytes(sense, 0, senseLength);
        }
        transport.queueStatus(bhs, data);
    }

    /** Sets the StatSN and the command window (ExpCmdSN, MaxCmdSN) every PDU of the target carries. */
    private void numbered(TargetBhsFlyweight<?> header, int statSN) {
        header.statSN(statSN).expCmdSN(window.expCmdSN()).maxCmdSN(window.maxCmdSN());
    }

    private void applyResidual(int residualFlag, int residual) {
        if (residualFlag == Residual.OVERFLOW) {
            scsiResponse.overflow(true).residualCount(residual);
        } else if (residualFlag == Residual.UNDERFLOW) {
            scsiResponse.underflow(true).residualCount(residual);
        }
    }

    /** One Data-In PDU; {@code data} is a retained slice of the task's buffer (no copy). */
    void dataIn(
            long lunRaw,
            int itt,
            int dataSN,
            int bufferOffset,
            ByteBuf data,
            boolean finalBit,
            boolean withStatus,
            int status,
            int residualFlag,
            int residual) {
        ByteBuf bhs = newHeader();
        dataIn.wrap(bhs)
                .init()
                .finalBit(finalBit)
                .lun(lunRaw)
                .initiatorTaskTag(itt)
                .targetTransferTag(RESERVED_TAG)
                .dataSN(dataSN)
                .bufferOffset(bufferOffset);
        // the window always, the StatSN with a status only (else 0)
        numbered(dataIn, 0);
        if (withStatus) {
            dataIn.statusPresent(true).status(status).statSN(statSN++);
            if (residualFlag == Residual.OVERFLOW) {
                dataIn.overflow(true).residualCount(residual);
            } else if (residualFlag == Residual.UNDERFLOW) {
                dataIn.underflow(true).residualCount(residual);
            }
        }
        send(bhs, data);
    }

    void r2t(long lunRaw, int itt, int ttt, int r2tSN, int bufferOffset, int length) {
        ByteBuf bhs = newHeader();
        r2t.wrap(bhs)
                .init()
                .lun(lunRaw)
                .initiatorTaskTag(itt)
                .targetTransferTag(ttt)
                .r2tSN(r2tSN)
                .bufferOffset(bufferOffset)
                .desiredDataTransferLength(length);
        numbered(r2t, statSN);
        send(bhs, null);
    }

    /** NOP-In answering a NOP-Out (advances StatSN) or, with itt == RESERVED_TAG, a keepalive ping (does not). */
    void nopIn(long lunRaw, int itt, int ttt, ByteBuf pingData) {
        ByteBuf bhs = newHeader();
        boolean reply = itt != RESERVED_TAG;
        nopIn.wrap(bhs).init().lun(lunRaw).initiatorTaskTag(itt).targetTransferTag(ttt);
        numbered(nopIn, reply ? statSN++ : statSN);
        send(bhs, pingData);
    }

    void taskManagementResponse(int itt, int response) {
        ByteBuf bhs = newHeader();
        tmfResponse.wrap(bhs).init().initiatorTaskTag(itt).response(response);
        numbered(tmfResponse, statSN++);
        send(bhs, null);
    }

    void textResponse(int itt, int ttt, boolean finalBit, boolean continueBit, byte[] text) {
        ByteBuf bhs = newHeader();
        textResponse
                .wrap(bhs)
                .init()
                .finalBit(finalBit)
                .continueBit(continueBit)
                .initiatorTaskTag(itt)
                .targetTransferTag(ttt);
        numbered(textResponse, statSN++);
        send(bhs, text.length == 0 ? null : Unpooled.wrappedBuffer(text));
    }

    void logoutResponse(int itt, int response, int time2Wait, int time2Retain) {
        ByteBuf bhs = newHeader();
        logoutResponse
                .wrap(bhs)
                .init()
                .initiatorTaskTag(itt)
                .response(response)
                .time2Wait(time2Wait)
                .time2Retain(time2Retain);
        numbered(logoutResponse, statSN++);
        send(bhs, null);
    }

    /** Asynchronous Message "target requests logout" (RFC 7143 11.9.1, AsyncEvent 1) within {@code seconds}. */
    void logoutRequest(int seconds) {
        ByteBuf bhs = newHeader();
        asyncMessage
                .wrap(bhs)
                .init()
                .asyncEvent(AsyncMessageHeader.EVENT_LOGOUT_REQUEST)
                .parameter3(seconds);
        numbered(asyncMessage, statSN++);
        send(bhs, null);
    }

    /** Reject carrying the offending BHS as its data segment (RFC 7143 11.17). Does not advance StatSN. */
    void reject(int reason, ByteBuf offendingBhs) {
        ByteBuf bhs = newHeader();
        reject.wrap(bhs)
                .init()
                .rejectReason(reason)
                .statSN(statSN)
                .expCmdSN(window == null ? 0 : window.expCmdSN())
                .maxCmdSN(window == null ? 0 : window.maxCmdSN());
        ByteBuf copy = transport.alloc().buffer(Pdu.BHS_LENGTH);
        copy.writeBytes(offendingBhs, 0, Pdu.BHS_LENGTH);
        send(bhs, copy);
    }
}
