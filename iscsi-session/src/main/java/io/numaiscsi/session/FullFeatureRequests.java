package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.CmdSnWindow;
import io.numaiscsi.proto.LogoutRequestHeader;
import io.numaiscsi.proto.NopOutHeader;
import io.numaiscsi.proto.Opcode;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.RejectReason;
import io.numaiscsi.proto.TextRequestHeader;
import io.numaiscsi.proto.login.SessionParameters;
import io.numaiscsi.proto.login.TextExchange;
import io.numaiscsi.proto.login.TextStep;
import io.numaiscsi.proto.transport.IscsiTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of a connection in full feature phase, dispatched by opcode: SCSI commands, task management, NOP-Out,
 * Text and Logout in CmdSN order (RFC 7143 4.2.2.1), Data-Out at once, anything else rejected. Created once the login
 * is done; on the connection's thread.
 */
final class FullFeatureRequests {
    private static final Logger LOG = LoggerFactory.getLogger(IscsiConnection.class);
    private static final int RESERVED = ResponseWriter.RESERVED_TAG;

    private final IscsiConnection connection;
    private final IscsiTransport transport;
    private final ResponseWriter out;
    private final SessionParameters params;
    private final IscsiSession session;
    private final CmdSnOrdering ordering;
    /** Null in a discovery session, as is {@link #taskManagement}. */
    private final CommandFlow commands;

    private final TaskManagement taskManagement;
    private final TextExchange textExchange;
    private final Keepalive keepalive;
    private final NopOutHeader nopOut = new NopOutHeader();
    private final TextRequestHeader textRequest = new TextRequestHeader();
    private final LogoutRequestHeader logoutRequest = new LogoutRequestHeader();

    FullFeatureRequests(
            IscsiConnection connection,
            CmdSnWindow window,
            CommandFlow commands,
            TaskManagement taskManagement,
            TextExchange textExchange,
            Keepalive keepalive) {
        this.connection = connection;
        this.transport = connection.transport();
        this.out = connection.out();
        this.params = connection.parameters();
        this.session = connection.session();
        this.commands = commands;
        this.taskManagement = taskManagement;
        this.textExchange = textExchange;
        this.keepalive = keepalive;
        this.ordering = new CmdSnOrdering(window, transport, this::dispatch);
    }

    /** The connection closed: PDUs held for a CmdSN gap are released. */
    void releaseHeld() {
        ordering.releaseHeld();
    }

    /** A PDU of the full feature phase; ownership stays with the caller. */
    void onPdu(Pdu pdu) {
        if (pdu.dataDigestError()) {
            if (PeerEventLogs.REJECTED_PDUS.permit()) {
                LOG.warn(
                        "data digest error from {} on {} itt=0x{}: rejected",
                        transport.remoteAddress(),
                        pdu.opcode(),
                        Integer.toHexString(Bhs.initiatorTaskTag(pdu.bhs())));
            }
            out.reject(RejectReason.DATA_DIGEST_ERROR.code(), pdu.bhs());
            return;
        }
        Opcode op = pdu.opcode();
        if (op == null || !op.fromInitiator()) {
            if (PeerEventLogs.REJECTED_PDUS.permit()) {
                LOG.warn(
                        "rejecting PDU from {}: opcode 0x{} is not an initiator opcode",
                        transport.remoteAddress(),
                        Integer.toHexString(pdu.opcodeCode()));
            }
            out.reject(
                    op == null ? RejectReason.COMMAND_NOT_SUPPORTED.code() : RejectReason.PROTOCOL_ERROR.code(),
                    pdu.bhs());
            return;
        }
        switch (op) {
            case SCSI_DATA_OUT -> {
                if (commands == null) {
                    out.reject(RejectReason.PROTOCOL_ERROR.code(), pdu.bhs());
                } else {
                    commands.onDataOut(pdu);
                }
            }
            case SNACK_REQUEST -> out.reject(RejectReason.SNACK_REJECT.code(), pdu.bhs());
            case LOGIN_REQUEST -> {
                LOG.warn("dropping connection from {}: Login Request in full feature phase", transport.remoteAddress());
                out.reject(RejectReason.PROTOCOL_ERROR.code(), pdu.bhs());
                connection.close();
            }
            default -> orderedByCmdSN(pdu);
        }
    }

    /** Commands carrying a CmdSN run in CmdSN order (RFC 7143 4.2.2.1). */
    private void orderedByCmdSN(Pdu pdu) {
        ordering.offer(pdu);
    }

    private void dispatch(Pdu pdu, int cmdSN) {
        if (!connection.inFullFeature()) {
            return;
        }
        switch (pdu.opcode()) {
            case NOP_OUT -> onNopOut(pdu);
            case SCSI_COMMAND -> {
                if (commands == null) {
                    if (PeerEventLogs.REJECTED_PDUS.permit()) {
                        LOG.warn("rejecting SCSI command from {} in a discovery session", transport.remoteAddress());
                    }
                    out.reject(RejectReason.PROTOCOL_ERROR.code(), pdu.bhs());
                } else {
                    commands.onScsiCommand(pdu, cmdSN);
                }
            }
            case TASK_MGMT_REQUEST -> {
                if (taskManagement == null) {
                    out.reject(RejectReason.PROTOCOL_ERROR.code(), pdu.bhs());
                } else {
                    taskManagement.onRequest(pdu);
                }
            }
            case TEXT_REQUEST -> onText(pdu);
            case LOGOUT_REQUEST -> onLogout(pdu);
            default -> out.reject(RejectReason.PROTOCOL_ERROR.code(), pdu.bhs());
        }
    }

    private void onNopOut(Pdu pdu) {
        nopOut.wrap(pdu.bhs());
        int itt = nopOut.initiatorTaskTag();
        int ttt = nopOut.targetTransferTag();
        if (itt == RESERVED) {
            if (ttt != RESERVED) {
                keepalive.pong(ttt);
            }
            return;
        }
        ByteBuf ping = pdu.data();
        ByteBuf echo = null;
        if (ping != null) {
            int len = Math.min(ping.readableBytes(), textExchange.initiatorMaxRecvDataSegmentLength());
            echo = ping.retainedSlice(ping.readerIndex(), len);
        }
        out.nopIn(nopOut.lun(), itt, RESERVED, echo);
    }

    private void onText(Pdu pdu) {
        textRequest.wrap(pdu.bhs());
        byte[] data = pdu.data() == null ? new byte[0] : ByteBufUtil.getBytes(pdu.data());
        TextStep step = textExchange.onRequest(
                textRequest.finalBit(),
                textRequest.continueBit(),
                textRequest.initiatorTaskTag(),
                textRequest.targetTransferTag(),
                data);
        if (step.reject()) {
            out.reject(RejectReason.PROTOCOL_ERROR.code(), pdu.bhs());
            return;
        }
        out.textResponse(
                textRequest.initiatorTaskTag(),
                step.targetTransferTag(),
                step.finalBit(),
                step.continueBit(),
                step.data());
    }

    private void onLogout(Pdu pdu) {
        logoutRequest.wrap(pdu.bhs());
        int reason = logoutRequest.reasonCode();
        int response;
        if (reason == 2) {
            response = 2; // connection recovery is not supported at ErrorRecoveryLevel 0
        } else if (reason == 1 && logoutRequest.cid() != params.cid()) {
            response = 1; // CID not found
        } else {
            response = 0;
        }
        out.logoutResponse(
                logoutRequest.initiatorTaskTag(), response, params.defaultTime2Wait(), params.defaultTime2Retain());
        if (response == 0) {
            LOG.info(
                    "logout of session tsih={} ({}) from {}",
                    session.tsih(),
                    params.initiatorName(),
                    transport.remoteAddress());
            connection.loggedOut();
        }
    }
}
