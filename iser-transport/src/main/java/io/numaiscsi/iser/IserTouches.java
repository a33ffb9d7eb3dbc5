package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.numa.DataTouches;

/**
 * Where one portal's iSER data path touches memory, recorded in a {@link DataTouches}: the RDMA device's own reads
 * and writes of our memory (RDMA Write sources, RDMA Read data, immediate data received) by the device's node and the
 * memory's, and the connection threads' copies between the registered buffers and the session's by CPU node and
 * memory node. Data bytes only, as for TCP: PDU headers are left out.
 */
public final class IserTouches {
    private final DataTouches touches;
    private final int hcaNode;

    /** @param hcaNode the RDMA device's node (of the portal's network interface), -1 when the system does not say */
    public IserTouches(DataTouches touches, int hcaNode) {
        this.touches = touches;
        this.hcaNode = hcaNode;
    }

    /** A recorder nobody reads (tests, tools). */
    public static IserTouches unmeasured() {
        return new IserTouches(DataTouches.singleNode(), 0);
    }

    public DataTouches touches() {
        return touches;
    }

    /** The device read {@code length} bytes of registered memory at {@code address} (an RDMA Write's source). */
    void deviceRead(long address, int length) {
        touches.touchedBy(DataTouches.Kind.HCA_READ, hcaNode, address, length);
    }

    /** The device wrote {@code length} bytes of registered memory at {@code address} (RDMA Read data, a receive). */
    void deviceWrote(long address, int length) {
        touches.touchedBy(DataTouches.Kind.HCA_WRITE, hcaNode, address, length);
    }

    /** This thread copied {@code length} bytes from {@code src} into registered memory at {@code address}. */
    void copiedIn(ByteBuf src, int index, int length, long address) {
        touches.touched(DataTouches.Kind.COPY, src, index, length);
        touches.touched(DataTouches.Kind.COPY, address, length);
    }

    /** This thread copied {@code length} bytes from registered memory at {@code address} into {@code dst}. */
    void copiedOut(long address, int length, ByteBuf dst, int index) {
        touches.touched(DataTouches.Kind.COPY, address, length);
        touches.touched(DataTouches.Kind.COPY, dst, index, length);
    }
}
