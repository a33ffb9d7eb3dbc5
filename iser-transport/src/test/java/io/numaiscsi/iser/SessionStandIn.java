package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.proto.PduFailure;
import io.numaiscsi.proto.transport.TransportEvents;

/** A stand-in for the session layer: what an {@link IserConnection} never reports does nothing here. */
abstract class SessionStandIn implements TransportEvents {
    @Override
    public void onOpen() {}

    @Override
    public void onDecodeFailure(PduFailure failure, ByteBuf failedBhs) {}

    @Override
    public void dataOutArrived(int itt, int end) {}

    @Override
    public void dataOutFailed(int itt) {}

    @Override
    public void onWritable() {}

    @Override
    public void onTick() {}
}
