package io.numaiscsi.iser;

import java.nio.ByteBuffer;

/**
 * The private data of the RDMA CM connect request of an iSER initiator (RFC 7145 section 5.1.3, the "iSER CM
 * REQ Message Format"): one flags byte and three reserved bytes. ZBVA_NOT_SUPPORTED says the initiator's
 * advertised base offsets are absolute virtual addresses, not zero-based; SEND_W_INV_NOT_SUPPORTED says it
 * cannot take Send with Invalidate. An absent or short private data means both features are usable.
 */
public final class IserCmHeader {
    public static final int LENGTH = 4;
    public static final int ZBVA_NOT_SUPPORTED = 0x80;
    public static final int SEND_W_INV_NOT_SUPPORTED = 0x40;

    private final boolean zeroBasedAddresses;
    private final boolean sendWithInvalidate;

    private IserCmHeader(boolean zeroBasedAddresses, boolean sendWithInvalidate) {
        this.zeroBasedAddresses = zeroBasedAddresses;
        this.sendWithInvalidate = sendWithInvalidate;
    }

    /** Parses {@code length} bytes of private data at {@code at}; null or short data is "no flags". */
    public static IserCmHeader parse(ByteBuffer privateData, int at, int length) {
        if (privateData == null || length < 1) {
            return new IserCmHeader(true, true);
        }
        int flags = privateData.get(at) & 0xff;
        return new IserCmHeader((flags & ZBVA_NOT_SUPPORTED) == 0, (flags & SEND_W_INV_NOT_SUPPORTED) == 0);
    }

    /**
     * The accept's private data from the target, same format: zero-based addressing not used (we address with
     * whatever base offsets we get) and no Send with Invalidate (the initiator invalidates its own STags).
     */
    public static void putAccept(ByteBuffer b, int at) {
        b.put(at, (byte) (ZBVA_NOT_SUPPORTED | SEND_W_INV_NOT_SUPPORTED));
        b.put(at + 1, (byte) 0);
        b.put(at + 2, (byte) 0);
        b.put(at + 3, (byte) 0);
    }

    /** True when base offsets in iSER headers are zero-based tagged offsets, false for absolute addresses. */
    public boolean zeroBasedAddresses() {
        return zeroBasedAddresses;
    }

    public boolean sendWithInvalidate() {
        return sendWithInvalidate;
    }

    @Override
    public String toString() {
        return "IserCmHeader{zbva=" + zeroBasedAddresses + ", sendWithInvalidate=" + sendWithInvalidate + "}";
    }
}
