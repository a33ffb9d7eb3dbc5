package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.proto.login.SessionType;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTableTest {
    private static final String INITIATOR = "iqn.2026-11.test:host";
    private final ExportedTarget target = new ExportedTarget(
            "iqn.2026-11.test:t",
            null,
            List.of(),
            new ScsiTarget(
                    "iqn.2026-11.test:t",
                    List.of(new LogicalUnit(
                            0, LunIdentity.derive("iqn.2026-11.test:t", 0, null), new RamBlockDevice(1 << 20, 512))),
                    UnpooledByteBufAllocator.DEFAULT));
    private final SessionTable table = new SessionTable();

    @Test
    void sessionsGetDistinctNonZeroTsihs() {
        IscsiSession a = table.create(SessionType.NORMAL, INITIATOR, 1, target, 1);
        IscsiSession b = table.create(SessionType.NORMAL, INITIATOR, 2, target, 1);
        assertNotEquals(0, a.tsih());
        assertNotEquals(a.tsih(), b.tsih());
        assertEquals(2, table.sessionsOf(target.name()).size());
    }

    @Test
    void sameInitiatorAndIsidReinstatesTheSession() {
        IscsiSession old = table.create(SessionType.NORMAL, INITIATOR, 7, target, 1);
        IscsiSession fresh = table.create(SessionType.NORMAL, INITIATOR, 7, target, 1);
        assertEquals(1, table.size());
        assertSame(fresh, table.byTsih(fresh.tsih()));
        assertNull(table.byTsih(old.tsih()));
        assertFalse(table.remove(old), "the old session is gone already: its close must not act on the nexus");
        assertTrue(table.remove(fresh));
        assertEquals(0, table.size());
    }

    @Test
    void discoverySessionsAreNotSessionsOfATarget() {
        table.create(SessionType.DISCOVERY, INITIATOR, 1, null, 1);
        assertTrue(table.sessionsOf(target.name()).isEmpty());
        assertEquals(1, table.size());
    }

    @Test
    void daemonAndPerInitiatorLimitsRefuseNewSessionsButNotReinstatement() {
        SessionTable limited = new SessionTable(3, 2);
        IscsiSession a = limited.create(SessionType.NORMAL, INITIATOR, 1, target, 1);
        assertNotNull(limited.create(SessionType.NORMAL, INITIATOR, 2, target, 1));
        assertNull(limited.create(SessionType.NORMAL, INITIATOR.toUpperCase(), 3, target, 1), "per-initiator limit");
        assertNotNull(
                limited.create(SessionType.NORMAL, INITIATOR, 1, target, 1), "reinstating ISID 1 is no new session");
        assertNull(limited.byTsih(a.tsih()), "the reinstated session is gone");
        assertNotNull(limited.create(SessionType.DISCOVERY, "iqn.2026-11.test:other", 1, null, 1));
        assertNull(limited.create(SessionType.DISCOVERY, "iqn.2026-11.test:third", 1, null, 1), "daemon limit");
        assertEquals(3, limited.size());
        assertTrue(limited.limitReport(INITIATOR).contains("holds 2 of at most 2"), limited.limitReport(INITIATOR));
    }
}
