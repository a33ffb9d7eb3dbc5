package io.numaiscsi.iser;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The initiator side of a fake iSER connection, as the Linux iser module behaves: receive buffers posted
 * ahead, each control PDU Sent behind an iSER header that advertises the task's buffers.
 */
public final class FakeInitiator {
    static final int RX_SIZE = 28 + 48 + 8192;
    private final FakeEndpoint endpoint;
    private final MemoryRegion rx;
    private final MemoryRegion tx;
    private final int receiveBuffers;
    private int txSlot;

    /** One received PDU, copied out. */
    public record Received(int iserFlags, byte[] bhs, byte[] data) {
        public int opcode() {
            return bhs[0] & 0x3f;
        }

        public int itt() {
            return ByteBuffer.wrap(bhs).getInt(16);
        }
    }

    public FakeInitiator(FakeFabric fabric, FakeEndpoint endpoint, int receiveBuffers) {
        this.endpoint = endpoint;
        this.receiveBuffers = receiveBuffers;
        this.rx = fabric.register(ByteBuffer.allocateDirect(RX_SIZE * receiveBuffers));
        this.tx = fabric.register(ByteBuffer.allocateDirect(64 * 1024 * 16));
        for (int i = 0; i < receiveBuffers; i++) {
            endpoint.postRecv(SendQueue.recvWrId(i), rx, i * RX_SIZE, RX_SIZE);
        }
        endpoint.ring();
    }

    /** Sends one control PDU: iSER header with the given advertisement, then bhs and data. */
    public void send(
            byte[] bhs,
            byte[] data,
            boolean wsv,
            int writeStag,
            long writeBase,
            boolean rsv,
            int readStag,
            long readBase) {
        int slot = txSlot++ % 16;
        int at = slot * 64 * 1024;
        ByteBuffer b = tx.buffer();
        IserHeader.put(b, at, IserHeader.OPCODE_CONTROL, wsv, writeStag, writeBase, rsv, readStag, readBase);
        int dataLength = data == null ? 0 : data.length;
        ByteBuffer h = ByteBuffer.wrap(bhs.clone());
        h.put(5, (byte) (dataLength >> 16)).put(6, (byte) (dataLength >> 8)).put(7, (byte) dataLength);
        b.put(at + 28, h.array());
        if (dataLength > 0) {
            b.put(at + 76, data);
        }
        endpoint.postSend(slot, tx, at, 76 + dataLength, true);
        endpoint.ring();
    }

    /** Sends arbitrary bytes as one Send (iSER header, PDU and all up to the caller); at most 64 KiB. */
    void sendRaw(byte[] bytes) {
        int slot = txSlot++ % 16;
        int at = slot * 64 * 1024;
        tx.buffer().put(at, bytes);
        endpoint.postSend(slot, tx, at, bytes.length, true);
        endpoint.ring();
    }

    public void send(byte[] bhs, byte[] data) {
        send(bhs, data, false, 0, 0, false, 0, 0);
    }

    /** Everything received so far (receive buffers reposted); send completions are dropped. */
    public List<Received> receive() {
        List<Received> out = new ArrayList<>();
        endpoint.poll(
                (wrId, status, bytes) -> {
                    if (SendQueue.kindOf(wrId) != SendQueue.RECV || status != WorkCompletion.SUCCESS) {
                        return;
                    }
                    int slot = SendQueue.lowBits(wrId);
                    ByteBuffer b = rx.buffer();
                    int at = slot * RX_SIZE;
                    byte[] bhs = new byte[48];
                    b.get(at + 28, bhs);
                    int dataLength = ((bhs[5] & 0xff) << 16) | ((bhs[6] & 0xff) << 8) | (bhs[7] & 0xff);
                    byte[] data = new byte[dataLength];
                    b.get(at + 76, data);
                    out.add(new Received(b.get(at) & 0xff, bhs, data));
                    endpoint.postRecv(wrId, rx, at, RX_SIZE);
                },
                1 << 20);
        endpoint.ring();
        return out;
    }

    int receiveBuffers() {
        return receiveBuffers;
    }

    // ---- BHS builders ------------------------------------------------------------------------

    static byte[] loginRequest(int itt) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) (0x40 | 0x03)).put(1, (byte) 0x87); // immediate, T, CSG=1 NSG=3
        b.putInt(16, itt);
        return b.array();
    }

    static byte[] nopOut(int itt, int cmdSN) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) 0x00).put(1, (byte) 0x80);
        b.putInt(16, itt).putInt(20, -1).putInt(24, cmdSN);
        return b.array();
    }

    static byte[] scsiCommand(int itt, boolean read, boolean write, int edtl, int cmdSN) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) 0x01).put(1, (byte) (0x80 | (read ? 0x40 : 0) | (write ? 0x20 : 0) | 0x01));
        b.putInt(16, itt).putInt(20, edtl).putInt(24, cmdSN);
        b.put(32, (byte) (read ? 0x28 : 0x2a));
        return b.array();
    }

    static byte[] scsiResponse(int itt) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) 0x21).put(1, (byte) 0x80);
        b.putInt(16, itt);
        return b.array();
    }
}
