package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class AccessListTest {

    @Test
    void namesCompareCaseInsensitively() {
        AccessList acl = new AccessList(List.of("iqn.2026-11.test:host1"), List.of());
        assertTrue(acl.allows("iqn.2026-11.test:host1"));
        assertTrue(acl.allows("IQN.2026-11.TEST:HOST1"));
        assertFalse(acl.allows("iqn.2026-11.test:host2"));
        assertEquals("iqn.2026-11.test:host1", AccessList.normalizedName("IQN.2026-11.Test:Host1"));
    }

    @Test
    void anEmptyOrMissingNameNeverGetsIn() {
        assertFalse(AccessList.ANYONE.allows(""));
        assertFalse(AccessList.ANYONE.allows(null));
        assertTrue(AccessList.ANYONE.allows("iqn.2026-11.test:any"));
    }

    @Test
    void networks() throws Exception {
        AccessList acl = new AccessList(List.of(), List.of(NetworkRange.parse("10.1.0.0/16")));
        assertTrue(acl.allowsAddress(InetAddress.getByName("10.1.2.3")));
        assertFalse(acl.allowsAddress(InetAddress.getByName("10.2.0.1")));
        assertFalse(acl.allowsAddress(null));
        assertTrue(AccessList.ANYONE.allowsAddress(null));
    }

    @Test
    void targetDefinitionUsesTheSameRule() {
        TargetDefinition t =
                new TargetDefinition("iqn.2026-11.test:t", null, List.of("iqn.2026-11.test:host1"), List.of());
        assertTrue(t.allows("IQN.2026-11.test:host1"));
        assertFalse(t.allows(""));
    }
}
