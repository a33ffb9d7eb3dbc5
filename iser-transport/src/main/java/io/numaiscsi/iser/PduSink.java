package io.numaiscsi.iser;

import io.numaiscsi.proto.Pdu;

/** Where an iSER connection delivers what it receives: the transport-neutral session layer. */
public interface PduSink {
    /** One complete control-type PDU; ownership passes to the sink. */
    void onPdu(Pdu pdu);

    /** The connection is down (peer gone, completion error, or closed by us). Called once. */
    void onClosed();
}
