package io.numaiscsi.daemon.iser;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.DefaultEventLoop;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.iser.CmEvent;
import io.numaiscsi.iser.ConnectionSlots;
import io.numaiscsi.iser.FakeEndpoint;
import io.numaiscsi.iser.FakeFabric;
import io.numaiscsi.iser.FakeInitiator;
import io.numaiscsi.iser.IserConnection;
import io.numaiscsi.iser.IserLimits;
import io.numaiscsi.iser.IserSettings;
import io.numaiscsi.iser.IserTransport;
import io.numaiscsi.iser.MemoryRegion;
import io.numaiscsi.iser.RegisteredMemory;
import io.numaiscsi.iser.RegisteredSlabs;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import io.numaiscsi.session.ChapAccounts;
import io.numaiscsi.session.EventThreadRegistry;
import io.numaiscsi.session.EventThreads;
import io.numaiscsi.session.ExportedTarget;
import io.numaiscsi.session.IscsiConnection;
import io.numaiscsi.session.SessionServices;
import io.numaiscsi.session.SessionSettings;
import io.numaiscsi.session.SessionTable;
import io.numaiscsi.session.TargetDirectory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session layer on iSER connections over the fake verbs, wired as {@code IserPortal} and {@code IserPortals} wire
 * them (a slot, an {@link IserTransport} and its {@link IscsiConnection} on the connection's thread): a WRITE's data
 * comes by RDMA Read and a READ's leaves by RDMA Write with its status behind it; a discovery session that logs out,
 * connections closed through their transport during login (as a login timeout does), and one dropped by the
 * keepalive from its periodic tick each give the portal's slot back at once.
 */
class IserTransportTest {
    private static final String TARGET = "iqn.2026-11.test:iser";
    private static final int SLOTS = 4;
    private static final IserSettings SETTINGS = new IserSettings(8, 4, 8192, 8192, 16 * 1024, 8, 4, 64, 8);

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final FakeFabric fabric = new FakeFabric();
    private final NodeMemory memory = NodeMemory.open(NumaTopology.detect().pretend(2));
    private final RegisteredSlabs slabs = RegisteredSlabs.allocate(fabric, memory, 0, SETTINGS, SLOTS);
    private final ConnectionSlots slots =
            new ConnectionSlots(slabs, RegisteredMemory.register(fabric, List.of()), UnpooledByteBufAllocator.DEFAULT);
    private SessionServices services = services(Duration.ZERO);
    private long nextIsid = 0x400001370000L;

    /** One accepted connection: the initiator's end and the target's transport. */
    private final class Peer {
        final FakeEndpoint target;
        final FakeEndpoint initiatorSide;
        final FakeInitiator initiator;
        IserConnection conn;
        IserTransport transport;
        final List<FakeInitiator.Received> received = new ArrayList<>();

        Peer() throws Exception {
            int slot = slots.reserve();
            assertTrue(slot >= 0, "a free slot");
            FakeEndpoint[] pair = fabric.connect();
            target = pair[0];
            initiatorSide = pair[1];
            onLoop(() -> {
                transport = new IserTransport(loop, (destination, onArrival) -> {}, UnpooledByteBufAllocator.DEFAULT);
                conn = slots.open(slot, target, SETTINGS, transport.connectionEvents(), () -> {});
                transport.open(conn, t -> new IscsiConnection(t, services, System::nanoTime));
                assertTrue(conn.start());
                return null;
            });
            initiator = new FakeInitiator(fabric, initiatorSide, 16);
        }

        /** Sends one PDU and lets the connection's thread reap it, as a completion event would. */
        void send(byte[] bhs, String text) throws Exception {
            initiator.send(bhs, text == null ? null : text.getBytes(StandardCharsets.UTF_8));
            poll();
        }

        void poll() throws Exception {
            onLoop(() -> {
                while (conn.poll(64) > 0) {
                    received.addAll(initiator.receive());
                }
                received.addAll(initiator.receive());
                return null;
            });
        }

        FakeInitiator.Received last() {
            return received.get(received.size() - 1);
        }

        void discoveryLogin() throws Exception {
            send(loginRequest(nextIsid++), "InitiatorName=iqn.2026-11.test:host\0SessionType=Discovery\0");
            assertEquals(0x23, last().opcode());
            assertEquals(0, last().bhs()[36], "login status class: success");
            assertEquals(IserConnection.State.FULL_FEATURE, conn.state());
        }

        void normalLogin() throws Exception {
            long isid = nextIsid++;
            send(
                    loginRequest(isid),
                    "InitiatorName=iqn.2026-11.test:host\0TargetName=" + TARGET
                            + "\0SessionType=Normal\0RDMAExtensions=Yes\0HeaderDigest=None\0DataDigest=None\0"
                            + "ImmediateData=Yes\0MaxRecvDataSegmentLength=8192\0");
            for (int i = 0; i < 3 && (last().bhs()[1] & 0x80) == 0; i++) {
                send(loginRequest(isid), null); // the target had more to say: go on until it sets T
            }
            assertEquals(0x23, last().opcode());
            assertEquals(0, last().bhs()[36], "login status class: success");
            assertEquals(IserConnection.State.FULL_FEATURE, conn.state());
        }

        /** Sends a SCSI command advertising the initiator's buffers, as Linux iser does, and reaps what follows. */
        void command(byte[] bhs, byte[] immediate, MemoryRegion writeSource, int writeFrom, MemoryRegion readSink)
                throws Exception {
            initiator.send(
                    bhs,
                    immediate,
                    writeSource != null,
                    writeSource == null ? 0 : writeSource.rkey(),
                    writeSource == null ? 0 : writeSource.address() + writeFrom,
                    readSink != null,
                    readSink == null ? 0 : readSink.rkey(),
                    readSink == null ? 0 : readSink.address());
            for (int i = 0; i < 10; i++) {
                poll(); // the RDMA Reads complete on later polls
            }
        }

        void assertGone() {
            assertEquals(IserConnection.State.CLOSED, conn.state());
            assertTrue(target.isDestroyed(), "the queue pair is destroyed");
            assertFalse(transport.ticking(), "no tick for a closed connection");
        }
    }

    private static SessionServices services(Duration nopInTimeout) {
        TargetLimits limits = IserLimits.of(TargetLimits.defaults(), IserSettings.defaults(8));
        SessionSettings settings = new SessionSettings(
                limits,
                8,
                Duration.ZERO,
                nopInTimeout,
                List.of("10.0.2.15:3260"),
                1,
                LimitsSettings.DEFAULT,
                ChapAccounts.NONE);
        ScsiTarget scsi = new ScsiTarget(
                TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), new RamBlockDevice(1 << 20, 512))),
                UnpooledByteBufAllocator.DEFAULT);
        EventThreads inline = target -> null; // every command on the connection's own thread
        return new SessionServices(
                settings,
                new TargetDirectory(List.of(new ExportedTarget(TARGET, null, List.of(), scsi))),
                new SessionTable(),
                inline,
                new EventThreadRegistry());
    }

    /** A Login Request from the operational stage straight to full feature phase (T=1, CSG=1, NSG=3). */
    private static byte[] loginRequest(long isid) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) 0x43).put(1, (byte) 0x87);
        for (int i = 0; i < 6; i++) {
            b.put(8 + i, (byte) (isid >>> (40 - 8 * i)));
        }
        b.putInt(16, 1).putInt(24, 1);
        return b.array();
    }

    /** A READ(10) or WRITE(10) of {@code blocks} 512-byte blocks at LBA 0 (F bit set, simple task attribute). */
    private static byte[] scsiCommand(int itt, boolean read, int blocks, int cmdSN) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) 0x01).put(1, (byte) (0x80 | (read ? 0x40 : 0x20) | 0x01));
        b.putInt(16, itt).putInt(20, blocks * 512).putInt(24, cmdSN).putInt(28, 1);
        b.put(32, (byte) (read ? 0x28 : 0x2a)).putShort(32 + 7, (short) blocks);
        return b.array();
    }

    /** An immediate Text or Logout Request (F bit set; for Logout: reason 0, close the session). */
    private static byte[] immediate(int opcode, int itt, int cmdSN) {
        ByteBuffer b = ByteBuffer.allocate(48);
        b.put(0, (byte) (0x40 | opcode)).put(1, (byte) 0x80);
        b.putInt(16, itt).putInt(20, -1).putInt(24, cmdSN).putInt(28, 1);
        return b.array();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(10, TimeUnit.SECONDS);
    }

    private List<Peer> fillEverySlot() throws Exception {
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            peers.add(new Peer());
        }
        assertEquals(-1, slots.reserve(), "every slot is taken");
        return peers;
    }

    @AfterEach
    void tearDown() throws Exception {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        slabs.close();
        memory.close();
    }

    @Test
    void aWriteIsRdmaReadAndAReadRdmaWrittenWithItsStatusBehindIt() throws Exception {
        Peer peer = new Peer();
        peer.normalLogin();
        int blocks = 128;
        int length = blocks * 512;
        int immediate = 4096;
        byte[] payload = new byte[length];
        new Random(11).nextBytes(payload);
        MemoryRegion source = fabric.register(ByteBuffer.allocateDirect(length));
        source.buffer().put(0, payload);
        // Linux iser advertises the write buffer from the first byte it did not send as immediate data
        peer.command(scsiCommand(0x10, false, blocks, 1), Arrays.copyOf(payload, immediate), source, immediate, null);
        assertEquals(0x21, peer.last().opcode(), "the WRITE is answered once its data is in");
        assertEquals(0x10, peer.last().itt());
        assertEquals(0, peer.last().bhs()[3], "GOOD");

        MemoryRegion sink = fabric.register(ByteBuffer.allocateDirect(length));
        peer.command(scsiCommand(0x11, true, blocks, 2), null, null, 0, sink);
        assertEquals(0x21, peer.last().opcode(), "the READ's status is a SCSI Response");
        assertEquals(0x11, peer.last().itt());
        assertEquals(0, peer.last().bhs()[3], "GOOD");
        byte[] placed = new byte[length];
        sink.buffer().get(0, placed);
        assertArrayEquals(payload, placed, "the READ's data was RDMA-Written before its status arrived");
        for (FakeInitiator.Received r : peer.received) {
            assertTrue(r.opcode() != 0x25 && r.opcode() != 0x31, "no Data-In or R2T PDU over iSER: " + r.opcode());
        }
        assertTrue(peer.conn.rdmaReads() > 0 && peer.conn.rdmaWrites() > 0, "the data moved by RDMA");
        assertEquals(length - immediate, peer.conn.bytesRead(), "all but the immediate data was RDMA-Read");
        assertEquals(length, peer.conn.bytesWritten());
    }

    @Test
    void aDiscoverySessionThatLogsOutGivesItsSlotBackAtOnce() throws Exception {
        List<Peer> peers = fillEverySlot();
        Peer discovery = peers.get(0);
        discovery.discoveryLogin();
        discovery.send(immediate(0x04, 2, 1), "SendTargets=All\0");
        assertEquals(0x24, discovery.last().opcode());
        String text = new String(discovery.last().data(), StandardCharsets.UTF_8);
        assertTrue(text.contains("TargetName=" + TARGET), text);
        discovery.send(immediate(0x06, 3, 2), null);
        assertEquals(0x26, discovery.last().opcode(), "the Logout Response reached the initiator");
        discovery.assertGone();
        assertEquals(1, slots.free(), "the slot is back with the Logout Response's completion");

        new Peer().discoveryLogin();
    }

    @Test
    void transportCloseDuringLoginFreesEverySlot() throws Exception {
        List<Peer> peers = fillEverySlot();
        for (Peer p : peers) {
            assertTrue(p.transport.ticking(), "connections in login are ticked");
        }
        Peer gone = peers.get(0); // this initiator disconnected too, before the target closes
        gone.initiatorSide.disconnect();
        onLoop(() -> {
            CmEvent.deliver(CmEvent.DISCONNECTED, gone.conn);
            return null;
        });
        for (Peer p : peers) {
            onLoop(() -> {
                p.transport.close(); // what a login timeout does from IscsiConnection.onTick
                return null;
            });
            p.poll();
            p.assertGone();
        }
        assertEquals(SLOTS, slots.free());
        for (int i = 0; i < SLOTS; i++) {
            new Peer().discoveryLogin();
        }
    }

    @Test
    void theTickDrivesTheSessionLayerOnIserConnections() throws Exception {
        services = services(Duration.ofMillis(1500)); // NOP-In timeout: only a tick can notice the silence
        Peer silent = new Peer();
        silent.discoveryLogin();
        assertTrue(silent.transport.ticking());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (onLoop(() -> silent.conn.state()) == IserConnection.State.FULL_FEATURE && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        silent.poll();
        silent.assertGone();
        assertEquals(SLOTS, slots.free());
    }
}
