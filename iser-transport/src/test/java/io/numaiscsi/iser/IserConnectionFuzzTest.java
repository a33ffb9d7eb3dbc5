package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.proto.Pdu;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * An iSER connection fed arbitrary Sends by a hostile initiator (iSER headers with any STags and base offsets, any
 * BHS and lengths), while a session plays along: every SCSI command it sees gets data-in placed or data-out pulled with
 * lengths and offsets taken from the input. Invariants: no exception escapes; the connection is either still up or
 * torn down; a close ends with the queue pair destroyed once as soon as the flushes come back (no forced destroy),
 * every send buffer, data chunk and receive comes back, and every buffer the session lent the transport is given back
 * (reference counts return to the session's own).
 *
 * <p>Input layout: byte 0 bit 0: full feature phase from the start; then records of [u16 length][length bytes], each
 * Sent as is; a record's first two bytes also steer the session's reply to the next command (data-in length,
 * data-out offset). {@code mvn test} replays {@link #seededInputs()}; {@code bin/fuzz IserConnectionFuzzTest} fuzzes.
 */
class IserConnectionFuzzTest {
    static final int SEEDED_INPUTS = 1500;

    @FuzzTest(maxDuration = "5m")
    void sends(byte[] input) {
        check(input);
    }

    @Test
    void seededInputs() {
        Random random = new Random(7145);
        int dataIns = 0;
        int dataOuts = 0;
        int failed = 0;
        for (int i = 0; i < SEEDED_INPUTS; i++) {
            Session s = check(validThenMutated(random, i % 4 == 0 ? 0 : 1 + random.nextInt(6)));
            dataIns += s.dataIns;
            dataOuts += s.dataOuts;
            failed += s.conn.failure() != null ? 1 : 0;
        }
        System.out.println("IserConnectionFuzzTest: " + SEEDED_INPUTS + " seeded inputs: " + dataIns + " data-ins, "
                + dataOuts + " data-outs, " + failed + " connections dropped on bad input");
        // the seeds reach the data paths and the teardown on bad input, not only the header checks
        assertTrue(
                dataIns > 100 && dataOuts > 100 && failed > 100,
                "data-ins " + dataIns + ", data-outs " + dataOuts + ", connections dropped " + failed);
    }

    /** 1-5 plausible Sends (control header, SCSI or NOP-Out BHS, advertised STags), then {@code flips} random bytes. */
    static byte[] validThenMutated(Random random, int flips) {
        ByteBuffer b = ByteBuffer.allocate(64 * 1024);
        b.put((byte) (random.nextInt(4) == 0 ? 0 : 1));
        int sends = 1 + random.nextInt(5);
        for (int s = 0; s < sends; s++) {
            int data = random.nextInt(3) == 0 ? random.nextInt(9000) : 0;
            int length = IserSettings.HEADERS + data;
            b.putShort((short) length);
            int start = b.position();
            boolean read = random.nextBoolean();
            IserHeader.put(
                    b,
                    start,
                    IserHeader.OPCODE_CONTROL,
                    !read,
                    0x1000 + random.nextInt(8),
                    random.nextInt(1 << 20),
                    read,
                    0x1000 + random.nextInt(8),
                    random.nextInt(1 << 20));
            int bhs = start + IserHeader.LENGTH;
            b.put(bhs, (byte) (random.nextInt(5) == 0 ? 0x00 : 0x01)); // NOP-Out or SCSI Command
            b.put(bhs + 1, (byte) (0x80 | (read ? 0x40 : 0x20)));
            b.put(bhs + 5, (byte) (data >> 16)).put(bhs + 6, (byte) (data >> 8)).put(bhs + 7, (byte) data);
            b.putInt(bhs + 16, random.nextInt(8));
            b.putInt(bhs + 20, random.nextInt(300_000));
            b.position(start + length);
        }
        byte[] out = new byte[b.position()];
        b.get(0, out);
        for (int f = 0; f < flips; f++) {
            out[random.nextInt(out.length)] = (byte) random.nextInt(256);
        }
        return out;
    }

    /** Plays the session: records nothing but answers commands with RDMA transfers, as IserTransport does for it. */
    private static final class Session extends SessionStandIn {
        IserConnection conn;
        int steer;
        int closed;
        int dataIns;
        int dataOuts;
        final List<ByteBuf> lent = new ArrayList<>();

        @Override
        public void onPdu(Pdu pdu) {
            ByteBuf bhs = pdu.bhs();
            int opcode = bhs.getByte(0) & 0x3f;
            int itt = bhs.getInt(16);
            int flags = bhs.getByte(1);
            int edtl = bhs.getInt(20);
            pdu.release();
            if (opcode != 0x01 || conn.state() != IserConnection.State.FULL_FEATURE) {
                return;
            }
            int length = Math.floorMod(steer, Math.max(1, Math.min(Math.max(edtl, 1), 256 * 1024)) + 1);
            ByteBuf buf = Unpooled.directBuffer(Math.max(length, 1)).writerIndex(length);
            lent.add(buf);
            if ((flags & 0x40) != 0) {
                dataIns++;
                conn.putDataIn(itt, buf, length);
            } else {
                dataOuts++;
                int offset = Math.floorMod(steer >> 8, 4096);
                conn.getDataOut(
                        itt,
                        buf,
                        Math.min(offset, length),
                        length - Math.min(offset, length),
                        Math.min(offset, length));
            }
            ByteBuf response = Unpooled.buffer(48).writeZero(48);
            response.setByte(0, 0x21);
            response.setInt(16, itt);
            conn.write(response);
            conn.flush();
        }

        @Override
        public void onClosed() {
            closed++;
        }
    }

    static Session check(byte[] input) {
        Session session = new Session();
        if (input.length < 1) {
            return session;
        }
        IserSettings settings = new IserSettings(8, 4, 8192, 8192, 16 * 1024, 8, 4, 64, 8);
        FakeFabric fabric = new FakeFabric();
        FakeEndpoint[] pair = fabric.connect();
        MemoryRegion slab = fabric.register(ByteBuffer.allocateDirect((int) settings.connectionBytes()));
        ByteBuffer cacheMemory = ByteBuffer.allocateDirect(64 * 1024);
        RegisteredMemory shared = RegisteredMemory.register(fabric, List.of(cacheMemory));
        int[] destroyed = new int[1];
        IserConnection conn = new IserConnection(
                pair[0],
                slab,
                0,
                settings,
                shared,
                UnpooledByteBufAllocator.DEFAULT,
                session,
                () -> destroyed[0]++,
                IserTouches.unmeasured());
        session.conn = conn;
        assertTrue(conn.start());
        // the initiator's own buffers, so some advertised STags (0x1000..) resolve
        for (int i = 0; i < 4; i++) {
            fabric.register(ByteBuffer.allocateDirect(256 * 1024));
        }
        FakeInitiator initiator = new FakeInitiator(fabric, pair[1], 16);
        if ((input[0] & 1) != 0) {
            conn.enterFullFeature(false, false);
        }
        int at = 1;
        while (at + 2 <= input.length && conn.state() != IserConnection.State.CLOSED) {
            int length = Math.min(((input[at] & 0xff) << 8) | (input[at + 1] & 0xff), input.length - at - 2);
            byte[] send = new byte[Math.min(length, 60 * 1024)];
            System.arraycopy(input, at + 2, send, 0, send.length);
            session.steer = send.length >= 2 ? (send[0] << 8) | (send[1] & 0xff) : length;
            at += 2 + length;
            initiator.sendRaw(send);
            for (int i = 0; i < 50 && conn.poll(64) > 0; i++) {
                initiator.receive();
            }
            initiator.receive();
        }
        conn.close();
        for (int i = 0; i < 100 && conn.state() != IserConnection.State.CLOSED; i++) {
            conn.poll(64);
            initiator.receive();
        }
        assertEquals(IserConnection.State.CLOSED, conn.state(), "the disconnect's flushes alone end the connection");
        conn.forceDestroy();
        assertEquals(1, destroyed[0], "the queue pair is destroyed exactly once");
        assertTrue(session.closed <= 1, "the session hears of the end at most once");
        assertEquals(0, conn.sendBuffersInUse(), "send buffers back");
        assertEquals(0, conn.dataChunksInUse(), "data chunks back");
        assertEquals(0, conn.postedReceives(), "receives reaped");
        for (ByteBuf b : session.lent) {
            assertEquals(1, b.refCnt(), "the transport gave back every buffer the session lent it");
            b.release();
        }
        return session;
    }
}
