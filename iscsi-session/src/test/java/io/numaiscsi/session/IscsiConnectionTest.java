package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.proto.AsyncMessageHeader;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.Opcode;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.proto.transport.RemoteAddresses;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The guards of the login phase: login slots, the login timeouts, and the failed-login throttle. */
class IscsiConnectionTest {
    private static final String TARGET = "iqn.2026-11.test:guards";
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong();
    private final EmbeddedChannel loop = new EmbeddedChannel();
    private SessionServices services;

    private void services(LimitsSettings resources, ConnectionGuards guards) {
        TargetLimits limits = new TargetLimits(
                262144, 262144, 65536, 1, true, true, List.of("None"), List.of("None"), 2, 0, false, 0);
        SessionSettings settings = new SessionSettings(
                limits, 16, Duration.ZERO, Duration.ZERO, List.of("127.0.0.1:3260"), 1, resources, ChapAccounts.NONE);
        ScsiTarget scsi = new ScsiTarget(
                TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), new RamBlockDevice(1 << 20, 512))),
                UnpooledByteBufAllocator.DEFAULT);
        EventThreads inline = InlineEventThreads.INSTANCE;
        services = new SessionServices(
                settings,
                new TargetDirectory(List.of(new ExportedTarget(TARGET, null, List.of(), scsi))),
                new SessionTable(),
                inline,
                new EventThreadRegistry(),
                guards);
    }

    private IscsiConnection open(FakeTransport transport) {
        transport.executor = loop.eventLoop();
        IscsiConnection c = new IscsiConnection(transport, services, clock::get);
        c.onOpen();
        return c;
    }

    /** A login request from the security (csg 0, offering AuthMethod=None) or the operational stage (csg 1). */
    private static void send(IscsiConnection c, int csg, int nsg, String targetName) {
        var keys = ConnectionLoginTest.keys(
                "InitiatorName", "iqn.2026-11.test:host", "TargetName", targetName, "SessionType", "Normal");
        if (csg == 0) {
            keys.put("AuthMethod", "None");
        }
        c.onPdu(ConnectionLoginTest.request(csg, nsg, 0x400001370000L, keys));
    }

    @AfterEach
    void close() {
        loop.finishAndReleaseAll();
    }

    @Test
    void aConnectionThatSendsNothingIsDroppedAndGivesItsSlotBack() {
        LimitsSettings limits = LimitsSettings.DEFAULT;
        ConnectionGuards guards = ConnectionGuards.of(limits);
        services(limits, guards);
        FakeTransport transport = new FakeTransport("127.0.0.2:40000");
        IscsiConnection c = open(transport);
        assertEquals(1, guards.logins().inLogin());
        clock.addAndGet(limits.loginPduTimeout().toNanos());
        c.onTick();
        assertFalse(transport.closed, "not before the per-PDU timeout");
        clock.addAndGet(1);
        c.onTick();
        assertTrue(transport.closed);
        assertEquals(0, guards.logins().inLogin(), "the slot is free before the transport even reports the close");
        c.onClosed();
        assertEquals(0, guards.logins().inLogin());
    }

    @Test
    void aLoginThatTricklesIsDroppedAtTheWholeLoginTimeout() {
        LimitsSettings limits = new LimitsSettings(
                16,
                16,
                1 << 20,
                8,
                8,
                Duration.ofSeconds(6),
                Duration.ofSeconds(5),
                Duration.ofSeconds(20),
                1 << 20,
                64L << 20);
        ConnectionGuards guards = ConnectionGuards.of(limits);
        services(limits, guards);
        FakeTransport transport = new FakeTransport("127.0.0.2:40000");
        IscsiConnection c = open(transport);
        clock.addAndGet(4 * SECOND);
        send(c, 0, 1, TARGET); // security -> operational: the login goes on
        assertFalse(transport.closed);
        clock.addAndGet(2 * SECOND + 1);
        c.onTick();
        assertTrue(transport.closed, "6 s in all without finishing");
        assertEquals(0, guards.logins().inLogin());
    }

    @Test
    void aFinishedLoginLeavesItsSlotAndIsNotTimedOut() {
        ConnectionGuards guards = ConnectionGuards.of(LimitsSettings.DEFAULT);
        services(LimitsSettings.DEFAULT, guards);
        FakeTransport transport = new FakeTransport("127.0.0.2:40000");
        IscsiConnection c = open(transport);
        send(c, 1, 3, TARGET);
        assertNotNull(c.parameters(), "logged in");
        assertEquals(0, guards.logins().inLogin());
        clock.addAndGet(60 * SECOND);
        c.onTick();
        assertFalse(transport.closed);
        c.onClosed();
        assertEquals(0, guards.logins().inLogin(), "nothing given back twice");
    }

    @Test
    void connectionsBeyondTheSourceCapAreClosedAtOnce() {
        LimitsSettings limits = new LimitsSettings(
                16,
                16,
                1 << 20,
                8,
                2,
                Duration.ofSeconds(15),
                Duration.ofSeconds(5),
                Duration.ofSeconds(20),
                1 << 20,
                64L << 20);
        services(limits, ConnectionGuards.of(limits));
        FakeTransport a = new FakeTransport("127.0.0.2:40000");
        FakeTransport b = new FakeTransport("127.0.0.2:40001");
        FakeTransport c = new FakeTransport("127.0.0.2:40002");
        FakeTransport other = new FakeTransport("127.0.0.1:40003");
        open(a);
        open(b);
        open(c);
        open(other);
        assertFalse(a.closed);
        assertFalse(b.closed);
        assertTrue(c.closed, "a third connection in login from one address");
        assertFalse(other.closed, "another address is not affected");
    }

    @Test
    void answersToAGuessingSourceAreHeldBackWhateverTheVerdict() {
        ConnectionGuards guards = ConnectionGuards.of(LimitsSettings.DEFAULT);
        services(LimitsSettings.DEFAULT, guards);
        FakeTransport first = new FakeTransport("127.0.0.2:40000");
        IscsiConnection c1 = open(first);
        send(c1, 1, 3, "iqn.2026-11.test:no-such-target");
        assertTrue(first.closed, "the first failure is answered at once");
        c1.onClosed();
        assertEquals(1, guards.authThrottle().failures(RemoteAddresses.parse("127.0.0.2:1")));

        FakeTransport second = new FakeTransport("127.0.0.2:40001");
        IscsiConnection c2 = open(second);
        send(c2, 1, 3, "iqn.2026-11.test:no-such-target");
        assertFalse(second.closed, "a failure after a failure waits");
        loop.advanceTimeBy(AuthThrottle.BASE_DELAY_NANOS, TimeUnit.NANOSECONDS);
        loop.runScheduledPendingTasks();
        assertTrue(second.closed);
        c2.onClosed();

        FakeTransport third = new FakeTransport("127.0.0.2:40002");
        IscsiConnection c3 = open(third);
        send(c3, 1, 3, TARGET);
        assertEquals(0, third.flushes, "a success from a guessing source waits as long as a failure would");
        loop.advanceTimeBy(2 * AuthThrottle.BASE_DELAY_NANOS, TimeUnit.NANOSECONDS);
        loop.runScheduledPendingTasks();
        assertEquals(1, third.flushes);
        assertNotNull(c3.parameters(), "and then logs in");

        FakeTransport honest = new FakeTransport("127.0.0.1:40003");
        IscsiConnection c4 = open(honest);
        c4.onPdu(ConnectionLoginTest.request(
                1,
                3,
                0x400001370001L,
                ConnectionLoginTest.keys(
                        "InitiatorName", "iqn.2026-11.test:honest", "TargetName", TARGET, "SessionType", "Normal")));
        assertEquals(1, honest.flushes, "another source and name are answered at once");
        assertNotNull(c4.parameters());
    }

    @Test
    void aPduBeforeTheHeldAnswerClosesTheConnection() {
        ConnectionGuards guards = ConnectionGuards.of(LimitsSettings.DEFAULT);
        services(LimitsSettings.DEFAULT, guards);
        guards.authThrottle().failed(RemoteAddresses.parse("127.0.0.2:1"), null);
        FakeTransport transport = new FakeTransport("127.0.0.2:40000");
        IscsiConnection c = open(transport);
        send(c, 0, 1, TARGET);
        assertFalse(transport.closed);
        send(c, 1, 3, TARGET);
        assertTrue(transport.closed, "login requests are one at a time");
        assertEquals(0, guards.logins().inLogin());
    }

    @Test
    void aLogoutRequestIsAnAsyncMessageAndTheConnectionClosesIfTheInitiatorIgnoresIt() {
        services(LimitsSettings.DEFAULT, ConnectionGuards.of(LimitsSettings.DEFAULT));
        FakeTransport transport = new FakeTransport("127.0.0.2:40000");
        IscsiConnection c = open(transport);
        send(c, 1, 3, TARGET);
        int loginStatSN = transport.last().getInt(Bhs.STAT_SN_OFFSET);
        assertEquals(1, services.sessions().requestLogout(s -> s.target().equals(TARGET), 5, "test"));
        loop.runPendingTasks();
        ByteBuf pdu = transport.last();
        assertEquals(Opcode.ASYNC_MESSAGE.code(), Bhs.opcode(pdu));
        AsyncMessageHeader h = new AsyncMessageHeader().wrap(pdu.slice(0, 48));
        assertEquals(AsyncMessageHeader.EVENT_LOGOUT_REQUEST, h.asyncEvent());
        assertEquals(5, h.parameter3(), "seconds the initiator has to log out");
        assertEquals(0xffffffff, h.initiatorTaskTag());
        assertEquals(loginStatSN + 1, h.statSN(), "the message takes the next StatSN");
        assertFalse(transport.closed);
        loop.advanceTimeBy(5, TimeUnit.SECONDS);
        loop.runScheduledPendingTasks();
        assertTrue(transport.closed, "no Logout within 5 s: the connection is closed");
        transport.release();
    }
}
