package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.scsi.CommandCounters;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection counts each command into its LUN's {@link CommandCounters}: latency from the command PDU's arrival
 * (a write's Data-Out wait included) to the SCSI completion, and CHECK CONDITIONs also for commands refused before they
 * execute.
 */
class CommandFlowCountersTest {
    private static final String TARGET = "iqn.2026-11.test:counters";
    private static final long BLOCKS = (4 << 20) / 512;

    private final AtomicLong clock = new AtomicLong();
    private final LogicalUnit unit =
            new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), new RamBlockDevice(4 << 20, 512));
    private FakeTransport transport;
    private IscsiConnection connection;
    private int cmdSN = 1;

    @BeforeEach
    void logIn() {
        TargetLimits limits = new TargetLimits(
                262144, 262144, 65536, 1, true, true, List.of("None"), List.of("None"), 2, 0, false, 0);
        LimitsSettings resources = new LimitsSettings(16, 16, 1 << 20);
        SessionSettings settings = new SessionSettings(
                limits, 16, Duration.ZERO, Duration.ZERO, List.of("127.0.0.1:3260"), 1, resources, ChapAccounts.NONE);
        ScsiTarget scsi = new ScsiTarget(TARGET, List.of(unit), UnpooledByteBufAllocator.DEFAULT);
        TargetDirectory directory = new TargetDirectory(List.of(new ExportedTarget(TARGET, null, List.of(), scsi)));
        transport = new FakeTransport("127.0.0.1:40000");
        connection = new IscsiConnection(
                transport,
                new SessionServices(
                        settings,
                        directory,
                        new SessionTable(),
                        InlineEventThreads.INSTANCE,
                        new EventThreadRegistry(),
                        ConnectionGuards.of(resources)),
                clock::get);
        connection.onPdu(ConnectionLoginTest.request(
                1,
                3,
                0x400001370000L,
                ConnectionLoginTest.keys(
                        "InitiatorName",
                        "iqn.2026-11.test:host",
                        "TargetName",
                        TARGET,
                        "SessionType",
                        "Normal",
                        "ImmediateData",
                        "No",
                        "InitialR2T",
                        "Yes",
                        "MaxRecvDataSegmentLength",
                        "262144")));
        assertNotNull(connection.parameters(), "login did not complete");
        transport.release();
    }

    @AfterEach
    void close() {
        transport.release();
        connection.onClosed();
    }

    private Pdu command(int itt, boolean read, long lba, int blocks) {
        ByteBuf bhs = Unpooled.buffer(48, 48).writeZero(48);
        bhs.setByte(0, 0x01);
        bhs.setByte(1, 0x80 | (read ? 0x40 : 0x20) | 0x01);
        bhs.setInt(16, itt);
        bhs.setInt(20, blocks * 512);
        bhs.setInt(24, cmdSN++);
        bhs.setByte(32, read ? 0x28 : 0x2a);
        bhs.setInt(32 + 2, (int) lba);
        bhs.setShort(32 + 7, blocks);
        return Pdu.newInstance(bhs, null, null);
    }

    private ByteBuf r2t(int itt) {
        for (ByteBuf b : transport.written) {
            if ((b.getByte(0) & 0x3f) == 0x31 && b.getInt(16) == itt) {
                return b;
            }
        }
        throw new AssertionError("no R2T for itt " + itt);
    }

    private static Pdu dataOut(int itt, int ttt, int length) {
        ByteBuf bhs = Unpooled.buffer(48, 48).writeZero(48);
        bhs.setByte(0, 0x05);
        bhs.setByte(1, 0x80);
        bhs.setMedium(5, length);
        bhs.setInt(16, itt);
        bhs.setInt(20, ttt);
        return Pdu.newInstance(bhs, null, Unpooled.wrappedBuffer(new byte[length]));
    }

    @Test
    void aWritesLatencyRunsFromItsCommandPduToItsCompletionDataOutIncluded() {
        clock.set(1_000_000);
        connection.onPdu(command(7, false, 0, 8));
        clock.set(1_300_000); // the initiator answers the R2T 300 us later
        connection.onPdu(dataOut(7, r2t(7).getInt(20), 8 * 512));
        CommandCounters c = unit.counters();
        assertEquals(1, c.commands(CommandCounters.Op.WRITE));
        assertEquals(8 * 512, c.bytes(CommandCounters.Op.WRITE));
        assertEquals(300_000, c.latencySumNanos(CommandCounters.Op.WRITE));
        assertEquals(1, c.latencyBuckets(CommandCounters.Op.WRITE)[3], "the bucket up to 300 us");
        assertEquals(0, c.executing());

        connection.onPdu(command(8, true, 0, 8));
        assertEquals(1, c.commands(CommandCounters.Op.READ));
        assertEquals(8 * 512, c.bytes(CommandCounters.Op.READ));
        assertEquals(1, c.latencyBuckets(CommandCounters.Op.READ)[0], "no time passed");
    }

    @Test
    void aReadBeyondTheEndIsACheckConditionOfItsLunThoughItNeverExecutes() {
        connection.onPdu(command(9, true, BLOCKS, 1));
        CommandCounters c = unit.counters();
        assertEquals(1, c.checkConditions(0x5), "ILLEGAL REQUEST");
        assertEquals(0, c.commands(CommandCounters.Op.READ), "refused while decoded: not executed");
        assertEquals(0, c.executing());
    }
}
