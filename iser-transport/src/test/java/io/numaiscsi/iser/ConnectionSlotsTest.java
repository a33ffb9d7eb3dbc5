package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.proto.Pdu;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A portal's connection slots over the fake verbs: however a connection ends (the target closes it, the initiator
 * disconnects, a discovery session logs out, a connection that never logged in is closed), its slot is free again as
 * soon as the flushes of its disconnect are reaped, and a new connection gets it.
 */
class ConnectionSlotsTest {
    private static final int SLOTS = 4;
    private static final IserSettings SETTINGS = new IserSettings(8, 4, 8192, 8192, 16 * 1024, 8, 4, 64, 8);

    private FakeFabric fabric;
    private NodeMemory memory;
    private RegisteredSlabs slabs;
    private ConnectionSlots slots;

    /** One accepted connection with its initiator and a stand-in session that answers as the session layer does. */
    private final class Peer extends SessionStandIn {
        final FakeEndpoint target;
        final FakeEndpoint initiatorSide;
        final FakeInitiator initiator;
        final IserConnection conn;
        final List<Integer> opcodesSeen = new ArrayList<>();
        final List<Integer> opcodesReceived = new ArrayList<>();
        int closed;
        boolean destroyed;

        Peer(int slot) {
            FakeEndpoint[] pair = fabric.connect();
            target = pair[0];
            initiatorSide = pair[1];
            conn = slots.open(slot, target, SETTINGS, this, () -> destroyed = true);
            assertTrue(conn.start());
            initiator = new FakeInitiator(fabric, initiatorSide, 16);
        }

        @Override
        public void onPdu(Pdu pdu) {
            int opcode = pdu.bhs().getByte(0) & 0x3f;
            int itt = pdu.bhs().getInt(16);
            pdu.release();
            opcodesSeen.add(opcode);
            switch (opcode) {
                case 0x03 -> { // Login: the final response, flushed, then full feature phase (ConnectionLogin)
                    conn.write(response(0x23, itt));
                    conn.flush();
                    conn.enterFullFeature(false, false);
                }
                case 0x04 -> { // Text (SendTargets=All)
                    conn.write(response(0x24, itt));
                    conn.flush();
                }
                case 0x06 -> { // Logout: the response is queued, then the channel is closed (IscsiConnection.onLogout)
                    conn.write(response(0x26, itt));
                    conn.close();
                }
                default -> {}
            }
        }

        @Override
        public void onClosed() {
            closed++;
        }

        void pollAll() {
            do {
                for (FakeInitiator.Received r : initiator.receive()) {
                    opcodesReceived.add(r.opcode());
                }
            } while (conn.poll(64) > 0);
        }

        void login() {
            initiator.send(FakeInitiator.loginRequest(1), "SessionType=Discovery\0".getBytes());
            pollAll();
            assertEquals(List.of(0x23), opcodesReceived, "the login response");
            assertEquals(IserConnection.State.FULL_FEATURE, conn.state());
        }

        void assertGone() {
            assertEquals(IserConnection.State.CLOSED, conn.state());
            assertTrue(destroyed);
            assertTrue(target.destroyed, "the queue pair is destroyed");
            assertEquals(1, closed, "the session heard of the end once");
            assertEquals(0, conn.sendBuffersInUse(), "send buffers back");
            assertEquals(0, conn.dataChunksInUse(), "data chunks back");
            assertEquals(0, conn.postedReceives(), "receives reaped");
        }
    }

    private static ByteBuf response(int opcode, int itt) {
        ByteBuf b = Unpooled.buffer(48).writeZero(48);
        b.setByte(0, opcode);
        b.setByte(1, 0x80);
        b.setInt(16, itt);
        return b;
    }

    private static byte[] request(int opcode, int itt) {
        byte[] bhs = new byte[48];
        bhs[0] = (byte) (0x40 | opcode);
        bhs[1] = (byte) 0x80;
        ByteBuffer.wrap(bhs).putInt(16, itt);
        return bhs;
    }

    @BeforeEach
    void setUp() {
        fabric = new FakeFabric();
        memory = NodeMemory.open(NumaTopology.detect().pretend(2));
        slabs = RegisteredSlabs.allocate(fabric, memory, 0, SETTINGS, SLOTS);
        slots = new ConnectionSlots(
                slabs, RegisteredMemory.register(fabric, List.of()), UnpooledByteBufAllocator.DEFAULT);
    }

    @AfterEach
    void tearDown() {
        slabs.close();
        memory.close();
    }

    private List<Peer> fillEverySlot() {
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            int slot = slots.reserve();
            assertTrue(slot >= 0, "slot " + i);
            peers.add(new Peer(slot));
        }
        assertEquals(-1, slots.reserve(), "every slot is taken");
        return peers;
    }

    /** The freed slot takes a new connection, which logs in on it. */
    private void aNewConnectionGetsTheFreedSlot() {
        assertEquals(1, slots.free());
        int slot = slots.reserve();
        assertTrue(slot >= 0);
        Peer next = new Peer(slot);
        next.login();
        assertEquals(-1, slots.reserve(), "full again");
        next.conn.forceDestroy();
        assertEquals(1, slots.free());
        slots.reserve(); // keep the portal full for the next case
    }

    @Test
    void everyWayAConnectionEndsGivesItsSlotBackAtOnce() {
        List<Peer> peers = fillEverySlot();
        for (Peer p : peers) {
            p.login();
        }

        Peer closedByTarget = peers.get(0); // IscsiTransport.close(): a timeout, a reinstated session
        closedByTarget.conn.close();
        closedByTarget.pollAll();
        closedByTarget.assertGone();
        aNewConnectionGetsTheFreedSlot();

        Peer initiatorGone = peers.get(1); // the initiator disconnects without a logout
        initiatorGone.initiator.send(request(0x04, 2), "SendTargets=All\0".getBytes());
        initiatorGone.pollAll();
        initiatorGone.initiatorSide.disconnect();
        CmEvent.deliver(CmEvent.DISCONNECTED, initiatorGone.conn);
        initiatorGone.pollAll();
        initiatorGone.assertGone();
        aNewConnectionGetsTheFreedSlot();

        Peer discovery = peers.get(2); // SendTargets, then Logout, as iscsiadm's discovery does
        discovery.initiator.send(request(0x04, 2), "SendTargets=All\0".getBytes());
        discovery.pollAll();
        discovery.initiator.send(request(0x06, 3), null);
        discovery.pollAll();
        assertEquals(List.of(0x03, 0x04, 0x06), discovery.opcodesSeen);
        assertEquals(List.of(0x23, 0x24, 0x26), discovery.opcodesReceived, "the Logout Response left before the end");
        discovery.assertGone();
        aNewConnectionGetsTheFreedSlot();
    }

    @Test
    void connectionsThatNeverLogInAndAreClosedFreeEverySlot() {
        List<Peer> peers = fillEverySlot();
        peers.get(0).initiator.send(request(0x03, 1), null); // a login begun, never finished
        peers.get(0).conn.poll(64);
        for (Peer p : peers) { // what the login timeout does through IscsiTransport.close()
            p.conn.close();
            p.pollAll();
            p.assertGone();
        }
        assertEquals(SLOTS, slots.free());
        for (int i = 0; i < SLOTS; i++) {
            new Peer(slots.reserve()).login();
        }
        assertEquals(-1, slots.reserve());
    }

    @Test
    void theTotalsSumTheConnectionsGoneAndTheLiveOnes() {
        assertEquals(IserStats.ZERO, slots.totals().snapshot());
        Peer gone = new Peer(slots.reserve());
        Peer live = new Peer(slots.reserve());
        assertEquals(List.of(gone.conn, live.conn), slots.totals().live());
        gone.login();
        gone.initiator.send(request(0x06, 3), null); // Logout
        gone.pollAll();
        gone.assertGone();
        live.login();
        live.initiator.send(request(0x04, 2), "SendTargets=All\0".getBytes());
        live.pollAll();

        assertEquals(List.of(live.conn), slots.totals().live(), "the logged out connection left the live set");
        IserStats goneStats = gone.conn.counters();
        IserStats liveStats = live.conn.counters();
        assertEquals(new IserStats(2, 2, 0, 0, 0, 0, 0), goneStats, "Login and Logout, each answered");
        assertEquals(new IserStats(2, 2, 0, 0, 0, 0, 0), liveStats, "Login and Text, each answered");
        assertEquals(live.conn.receives(), liveStats.receives());
        assertEquals(goneStats.plus(liveStats), slots.totals().snapshot());

        live.conn.forceDestroy();
        assertEquals(List.of(), slots.totals().live());
        assertEquals(goneStats.plus(liveStats), slots.totals().snapshot(), "folded in once, at the destroy");
    }
}
