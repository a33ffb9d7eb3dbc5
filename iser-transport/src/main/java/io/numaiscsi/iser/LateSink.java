package io.numaiscsi.iser;

import io.numaiscsi.proto.Pdu;

/** A sink bound after its connection exists (the session side needs the connection to be built). */
public final class LateSink implements PduSink {
    private PduSink target;

    public void bind(PduSink sink) {
        this.target = sink;
    }

    @Override
    public void onPdu(Pdu pdu) {
        if (target == null) {
            pdu.release();
            return;
        }
        target.onPdu(pdu);
    }

    @Override
    public void onClosed() {
        if (target != null) {
            target.onClosed();
        }
    }
}
