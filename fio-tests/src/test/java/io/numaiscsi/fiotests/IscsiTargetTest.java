package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class IscsiTargetTest {

    @Test
    void parsesLunUrlAndRebuildsIt() {
        IscsiTarget t = IscsiTarget.parse("iscsi://127.0.0.1:13261/iqn.2026-11.test:tgt/1");
        assertEquals(new IscsiTarget("127.0.0.1", 13261, "iqn.2026-11.test:tgt", 1), t);
        assertEquals("iscsi://127.0.0.1:13261/iqn.2026-11.test:tgt/1", t.lunUrl());
        assertEquals("iscsi://127.0.0.1:13261", t.portalUrl());
    }

    @Test
    void fioFilenameEscapesEveryColon() {
        IscsiTarget t = new IscsiTarget("127.0.0.1", 3260, IscsiTarget.DEFAULT_IQN, 0);
        assertEquals("iscsi\\://127.0.0.1\\:3260/iqn.2026-11.io.numaiscsi\\:disk0/0", t.fioFilename());
    }

    @Test
    void rejectsUrlsWithoutPortOrLun() {
        assertThrows(IllegalArgumentException.class, () -> IscsiTarget.parse("iscsi://127.0.0.1/iqn.x/0"));
        assertThrows(IllegalArgumentException.class, () -> IscsiTarget.parse("iscsi://127.0.0.1:3260/iqn.x"));
        assertThrows(IllegalArgumentException.class, () -> IscsiTarget.parse("http://127.0.0.1:3260/iqn.x/0"));
    }
}
