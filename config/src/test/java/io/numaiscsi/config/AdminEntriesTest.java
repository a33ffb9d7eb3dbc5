package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Entries an admin request writes on its own (a target, a target's settings, a LUN): the config file's keys and
 * messages, plus the checks against what already runs.
 */
class AdminEntriesTest {
    private static final String DISK0 = "iqn.2026-11.io.numaiscsi:disk0";
    private static final String DISK1 = "iqn.2026-11.io.numaiscsi:disk1";

    private static TargetConfig running() throws ConfigException {
        return ConfigLoader.parse(
                "daemon: {data-dir: /tmp/admin-entries}\n"
                        + "targets:\n  - name: " + DISK0 + "\n    chap: {username: a, secret: initiator-secret-1, "
                        + "mutual-username: t, mutual-secret: target-secret-0001}\n"
                        + "    luns: [{id: 0, backing: file, path: a.img, size: 1M}]\n",
                "t.yaml");
    }

    @Test
    void aTargetWithItsLuns() throws ConfigException {
        TargetDefinition t = ConfigLoader.parseTarget(
                "{\"name\": \"" + DISK1 + "\", \"allow\": [\"iqn.2026-11.x:y\"], "
                        + "\"luns\": [{\"id\": 3, \"backing\": \"ram\", \"size\": \"1M\"}]}",
                "target.create params.target",
                running());
        assertEquals(DISK1, t.name());
        assertEquals(List.of("iqn.2026-11.x:y"), t.allowedInitiators());
        assertEquals(3, t.luns().get(0).id());
        assertNull(t.chap());
    }

    @Test
    void aTargetNameInUseIsRefused() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseTarget(
                        "{\"name\": \"" + DISK0
                                + "\", \"luns\": [{\"id\": 0, \"backing\": \"ram\", \"size\": \"1M\"}]}",
                        "target.create params.target",
                        running()));
        assertTrue(e.getMessage().startsWith("target.create params.target"), e.getMessage());
        assertTrue(e.getMessage().contains("name") && e.getMessage().contains("exists already"), e.getMessage());
    }

    @Test
    void aNewTargetNeedsALunAndMayNotTakeAnotherTargetsFile() {
        ConfigException none = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseTarget(
                        "{\"name\": \"" + DISK1 + "\"}", "target.create params.target", running()));
        assertTrue(none.getMessage().contains("luns"), none.getMessage());
        ConfigException file = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseTarget(
                        "{\"name\": \"" + DISK1
                                + "\", \"luns\": [{\"id\": 0, \"backing\": \"file\", \"path\": \"a.img\", "
                                + "\"size\": \"1M\"}]}",
                        "target.create params.target",
                        running()));
        assertTrue(
                file.getMessage().contains("luns[0].path") && file.getMessage().contains(DISK0), file.getMessage());
    }

    @Test
    void aSecretMayNotAuthenticateTheOtherDirectionOfARunningTarget() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseTarget(
                        "{\"name\": \"" + DISK1
                                + "\", \"chap\": {\"username\": \"b\", \"secret\": \"target-secret-0001\"}, "
                                + "\"luns\": [{\"id\": 0, \"backing\": \"ram\", \"size\": \"1M\"}]}",
                        "target.create params.target",
                        running()));
        assertTrue(
                e.getMessage().contains("chap.secret")
                        && e.getMessage().contains("target " + DISK0 + "'s chap.mutual-secret"),
                e.getMessage());
        assertFalse(e.getMessage().contains("target-secret-0001"), "no secret in a message: " + e.getMessage());
    }

    @Test
    void newSettingsKeepTheLunsAndMayReuseTheirOwnOldSecrets() throws ConfigException {
        TargetConfig running = running();
        TargetDefinition current = running.targets().get(0);
        TargetDefinition changed = ConfigLoader.parseTargetSettings(
                "{\"allow-networks\": [\"127.0.0.0/8\"], "
                        + "\"chap\": {\"username\": \"t\", \"secret\": \"target-secret-0001\"}}",
                "target.set params",
                running,
                current);
        assertEquals(current.luns(), changed.luns());
        assertEquals(1, changed.allowNetworks().size());
        assertFalse(changed.chap().mutual());
        assertTrue(changed.allowedInitiators().isEmpty(), "allow left out: any initiator, as in a file");
    }

    @Test
    void settingsNameTheFieldInError() throws ConfigException {
        TargetConfig running = running();
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseTargetSettings(
                        "{\"allow-networks\": [\"300.0.0.0/8\"]}",
                        "target.set params",
                        running,
                        running.targets().get(0)));
        assertTrue(
                e.getMessage().startsWith("target.set params") && e.getMessage().contains("allow-networks[0]"),
                e.getMessage());
        ConfigException luns = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parseTargetSettings(
                        "{\"luns\": []}",
                        "target.set params",
                        running,
                        running.targets().get(0)));
        assertTrue(luns.getMessage().contains("unknown key"), luns.getMessage());
    }
}
