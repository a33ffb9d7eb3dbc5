package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A portal, the discovery CHAP and one initiator's CHAP written on their own by an admin request. */
class AdminPortalAndChapEntriesTest {
    private static final String INITIATOR = "iqn.2026-11.example:host1";

    private static TargetConfig running() throws ConfigException {
        return ConfigLoader.parse(
                "daemon: {data-dir: /tmp/admin-entries}\n"
                        + "portals: [127.0.0.1:3260]\n"
                        + "discovery-chap: {username: d, secret: discovery-secret-1}\n"
                        + "initiators:\n  - name: " + INITIATOR
                        + "\n    chap: {username: h, secret: host1-secret-0001, "
                        + "mutual-username: t, mutual-secret: host1-target-0001}\n"
                        + "targets:\n  - name: iqn.2026-11.io.numaiscsi:disk0\n"
                        + "    luns: [{id: 0, backing: ram, size: 1M}]\n",
                "t.yaml");
    }

    @Test
    void aPortalIsAPortalsItemNotListenedOnAlready() throws ConfigException {
        List<Portal> portals = running().portals();
        assertEquals(new Portal("127.0.0.1", 3261), ConfigLoader.parsePortal("\"127.0.0.1:3261\"", "p", portals));
        assertEquals(
                Portal.Transport.ISER,
                ConfigLoader.parsePortal("{address: 127.0.0.1:3261, transport: iser}", "p", portals)
                        .transport());
        ConfigException duplicate = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parsePortal("127.0.0.1:3260", "portal.add params.portal", portals));
        assertTrue(
                duplicate.getMessage().startsWith("portal.add params.portal")
                        && duplicate.getMessage().contains("duplicate portal 127.0.0.1:3260"),
                duplicate.getMessage());
        ConfigException bad =
                assertThrows(ConfigException.class, () -> ConfigLoader.parsePortal("127.0.0.1:70000", "p", portals));
        assertTrue(bad.getMessage().contains("out of range"), bad.getMessage());
    }

    @Test
    void discoveryChapMayReuseItsOwnSecretButNotAnotherDirectionsAndNeedsTwelveBytes() throws ConfigException {
        TargetConfig running = running();
        assertEquals(
                "d2",
                ConfigLoader.parseDiscoveryChap("{username: d2, secret: discovery-secret-1}", "c", running)
                        .username());
        ConfigException direction = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseDiscoveryChap(
                        "{username: d, secret: host1-target-0001}", "chap.set params.discovery", running));
        assertTrue(
                direction.getMessage().contains("mutual-secret")
                        && !direction.getMessage().contains("host1-target" + "-0001\""),
                direction.getMessage());
        ConfigException shortSecret = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseDiscoveryChap(
                        "{username: d, secret: short}", "chap.set params.discovery", running));
        assertTrue(
                shortSecret.getMessage().contains("at least 12")
                        && !shortSecret.getMessage().contains("short\""),
                shortSecret.getMessage());
    }

    @Test
    void anInitiatorEntryReplacesItsOwnSecretsAndIsCheckedAgainstTheOthers() throws ConfigException {
        TargetConfig running = running();
        InitiatorDefinition replaced = ConfigLoader.parseInitiator(
                "{name: " + INITIATOR + ", chap: {username: h2, secret: host1-target-0001}}", "c", running);
        assertEquals("h2", replaced.chap().username());
        ConfigException direction = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseInitiator(
                        "{name: iqn.2026-11.example:host2, chap: {username: x, secret: host1-target-0001}}",
                        "c",
                        running));
        assertTrue(direction.getMessage().contains("initiator " + INITIATOR), direction.getMessage());
        ConfigException name = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseInitiator(
                        "{name: not-an-iqn, chap: {username: x, secret: some-secret-0001}}", "c", running));
        assertTrue(name.getMessage().contains("name"), name.getMessage());
    }
}
