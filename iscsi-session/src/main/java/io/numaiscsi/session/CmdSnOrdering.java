package io.numaiscsi.session;

import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.CmdSnVerdict;
import io.numaiscsi.proto.CmdSnWindow;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.transport.IscsiTransport;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a connection's non-immediate commands in CmdSN order (RFC 7143 4.2.2.1): in-window commands that arrive
 * early are held until the gap before them fills; immediate ones go at once; those outside the window are dropped.
 * On the connection's thread.
 */
final class CmdSnOrdering {
    private static final Logger LOG = LoggerFactory.getLogger(CmdSnOrdering.class);

    /** Where an ordered command goes. */
    interface Dispatch {
        void dispatch(Pdu pdu, int cmdSN);
    }

    private final CmdSnWindow window;
    private final IscsiTransport transport;
    private final Dispatch to;
    /** Bounded by the window: at most MaxCmdSN - ExpCmdSN commands can be ahead of the next one. */
    private final List<Pdu> held = new ArrayList<>();

    CmdSnOrdering(CmdSnWindow window, IscsiTransport transport, Dispatch to) {
        this.window = window;
        this.transport = transport;
        this.to = to;
    }

    void offer(Pdu pdu) {
        boolean immediate = Bhs.immediate(pdu.bhs());
        int cmdSN = pdu.bhs().getInt(Bhs.CMD_SN_OFFSET);
        CmdSnVerdict verdict = window.check(cmdSN, immediate);
        switch (verdict) {
            case IMMEDIATE -> to.dispatch(pdu, cmdSN);
            case ACCEPT -> {
                window.accepted();
                to.dispatch(pdu, cmdSN);
                drain();
            }
            case QUEUE -> {
                // The decoded Pdu is pooled and recycled when onPdu returns: hold a new one over the same parts.
                held.add(Pdu.newInstance(
                        pdu.bhs().retain(),
                        pdu.ahs() == null ? null : pdu.ahs().retain(),
                        pdu.data() == null ? null : pdu.data().retain()));
            }
            case DISCARD ->
                LOG.debug(
                        "discarding {} from {}: CmdSN {} outside window [{}, {}]",
                        pdu.opcode(),
                        transport.remoteAddress(),
                        Integer.toUnsignedString(cmdSN),
                        Integer.toUnsignedString(window.expCmdSN()),
                        Integer.toUnsignedString(window.maxCmdSN()));
        }
    }

    private void drain() {
        boolean progressed = true;
        while (progressed && !held.isEmpty()) {
            progressed = false;
            for (int i = 0; i < held.size(); i++) {
                Pdu next = held.get(i);
                int cmdSN = next.bhs().getInt(Bhs.CMD_SN_OFFSET);
                if (cmdSN == window.expCmdSN()) {
                    held.remove(i);
                    window.accepted();
                    try {
                        to.dispatch(next, cmdSN);
                    } finally {
                        next.release();
                    }
                    progressed = true;
                    break;
                }
            }
        }
    }

    /** The connection closed: held commands will never run. */
    void releaseHeld() {
        for (Pdu p : held) {
            p.release();
        }
        held.clear();
    }
}
