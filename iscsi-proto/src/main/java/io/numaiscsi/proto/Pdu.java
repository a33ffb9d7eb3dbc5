package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;
import io.netty.util.Recycler;

/**
 * One received PDU. Owns its reference-counted parts until {@link #release()}, which also returns
 * this object to a pool: do not touch a Pdu after releasing it.
 */
public final class Pdu {
    public static final int BHS_LENGTH = Bhs.LENGTH;

    private static final Recycler<Pdu> POOL = new Recycler<Pdu>() {
        @Override
        protected Pdu newObject(Handle<Pdu> handle) {
            return new Pdu(handle);
        }
    };

    private final Recycler.Handle<Pdu> handle;
    private ByteBuf bhs;
    private ByteBuf ahs;
    private ByteBuf data;
    private boolean dataDigestError;

    private Pdu(Recycler.Handle<Pdu> handle) {
        this.handle = handle;
    }

    /**
     * A PDU from parts a transport received (iSER, tests). Takes ownership of all three.
     * @param bhs 48 readable bytes at readerIndex 0
     * @param ahs null when there is none
     * @param data null when the data segment is empty
     */
    public static Pdu newInstance(ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
        return newInstance(bhs, ahs, data, false);
    }

    static Pdu newInstance(ByteBuf bhs, ByteBuf ahs, ByteBuf data, boolean dataDigestError) {
        if (bhs.readerIndex() != 0 || bhs.readableBytes() != BHS_LENGTH) {
            throw new IllegalArgumentException("BHS must be 48 readable bytes from index 0");
        }
        Pdu pdu = POOL.get();
        pdu.bhs = bhs;
        pdu.ahs = ahs;
        pdu.data = data;
        pdu.dataDigestError = dataDigestError;
        return pdu;
    }

    /** Exactly 48 readable bytes, readerIndex 0. */
    public ByteBuf bhs() {
        return bhs;
    }

    /** Null when TotalAHSLength == 0. */
    public ByteBuf ahs() {
        return ahs;
    }

    /** Null when DataSegmentLength == 0; excludes padding and digest. */
    public ByteBuf data() {
        return data;
    }

    /** Hands the data segment to the caller, who must release it; {@link #release()} then leaves it alone. */
    public ByteBuf takeData() {
        ByteBuf d = data;
        data = null;
        return d;
    }

    public int opcodeCode() {
        return Bhs.opcode(bhs);
    }

    /** Null for a reserved opcode (the session answers with Reject). */
    public Opcode opcode() {
        return Opcode.of(opcodeCode());
    }

    public boolean immediate() {
        return Bhs.immediate(bhs);
    }

    public int initiatorTaskTag() {
        return Bhs.initiatorTaskTag(bhs);
    }

    /** Data digest mismatch; header and framing were fine. */
    public boolean dataDigestError() {
        return dataDigestError;
    }

    /** Releases bhs, ahs and data and recycles this object. A second call before reuse is a no-op. */
    public void release() {
        if (bhs == null) {
            return;
        }
        bhs.release();
        bhs = null;
        if (ahs != null) {
            ahs.release();
            ahs = null;
        }
        if (data != null) {
            data.release();
            data = null;
        }
        dataDigestError = false;
        handle.recycle(this);
    }
}
