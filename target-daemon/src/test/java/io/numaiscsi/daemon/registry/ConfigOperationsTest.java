package io.numaiscsi.daemon.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.GroupSettings;
import io.numaiscsi.config.GroupTargets;
import io.numaiscsi.config.SecretCodec;
import io.numaiscsi.config.TargetConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A reload as operations: what can change live does, the rest is named as needing a restart. */
class ConfigOperationsTest {
    private static final String A = "iqn.2026-11.io.numaiscsi:a";
    private static final String B = "iqn.2026-11.io.numaiscsi:b";

    private static TargetConfig config(String targets) throws ConfigException {
        return ConfigLoader.parse("targets:\n" + targets, "t.yaml");
    }

    private static String target(String name, String extra, String luns) {
        return "  - name: " + name + "\n" + extra + "    luns: [" + luns + "]\n";
    }

    @Test
    void targetsRemovedAndRulesChangedApplyLiveRemovalsFirst() throws ConfigException {
        TargetConfig running = config(
                target(A, "", "{id: 0, backing: ram, size: 1M}") + target(B, "", "{id: 0, backing: ram, size: 1M}"));
        TargetConfig wanted = config(target(
                A,
                "    allow: [iqn.2026-11.x:y]\n",
                "{id: 0, backing: ram, size: 1M}, " + "{id: 1, backing: ram, size: 2M}"));
        ConfigOperations.Plan plan = ConfigOperations.diff(running, wanted);
        List<RegistryOperation> ops = plan.operations();
        assertEquals(3, ops.size(), ops.toString());
        assertEquals(new RegistryOperation.RemoveTarget(B), ops.get(0));
        assertTrue(
                ops.get(1) instanceof RegistryOperation.UpdateTarget u
                        && u.target().name().equals(A),
                ops.toString());
        assertTrue(
                ops.get(2) instanceof RegistryOperation.AddLun add && add.lun().id() == 1, ops.toString());
        assertTrue(plan.needRestart().isEmpty(), plan.needRestart().toString());
    }

    @Test
    void aChangedLunNeedsARestart() throws ConfigException {
        ConfigOperations.Plan plan = ConfigOperations.diff(
                config(target(A, "", "{id: 0, backing: ram, size: 1M}")),
                config(target(A, "", "{id: 0, backing: ram, size: 2M}")));
        assertTrue(plan.operations().isEmpty(), plan.operations().toString());
        assertEquals(1, plan.needRestart().size());
        assertTrue(
                plan.needRestart().get(0).contains("LUN 0 changed"),
                plan.needRestart().toString());
    }

    @Test
    void aChangedLogLevelIsNoRestartButOtherDaemonKeysAre() throws ConfigException {
        String t = "targets:\n" + target(A, "", "{id: 0, backing: ram, size: 1M}");
        TargetConfig running = ConfigLoader.parse("daemon:\n  log-level: info\n" + t, "t.yaml");
        ConfigOperations.Plan quieter =
                ConfigOperations.diff(running, ConfigLoader.parse("daemon:\n  log-level: warn\n" + t, "t.yaml"));
        assertTrue(
                quieter.operations().isEmpty() && quieter.needRestart().isEmpty(),
                quieter.needRestart().toString());
        ConfigOperations.Plan moreThreads = ConfigOperations.diff(
                running, ConfigLoader.parse("daemon:\n  log-level: info\n  io-threads: 8\n" + t, "t.yaml"));
        assertEquals(
                1, moreThreads.needRestart().size(), moreThreads.needRestart().toString());
    }

    @Test
    void changedLunMapsApplyLiveAfterTheLunsTheyName() throws ConfigException {
        TargetConfig running = config(target(A, "", "{id: 0, backing: ram, size: 1M}"));
        TargetConfig wanted = config(target(
                A,
                "    lun-maps: [{initiators: ['*'], luns: [{lun: 1, as: 0}]}]\n",
                "{id: 0, backing: ram, size: 1M}, {id: 1, backing: ram, size: 1M}"));
        ConfigOperations.Plan plan = ConfigOperations.diff(running, wanted);
        List<RegistryOperation> ops = plan.operations();
        assertEquals(2, ops.size(), ops.toString());
        assertTrue(
                ops.get(0) instanceof RegistryOperation.AddLun add && add.lun().id() == 1, ops.toString());
        assertTrue(
                ops.get(1) instanceof RegistryOperation.SetLunMaps m
                        && m.maps().equals(wanted.targets().get(0).lunMaps()),
                ops.toString());
        assertTrue(plan.needRestart().isEmpty(), plan.needRestart().toString());
    }

    @Test
    void aGroupMemberJoiningChangesThePeerGroupsLiveAndAMovedOwnerReopensNothing() throws Exception {
        GroupSettings gw1 = new GroupSettings(
                "g", "gw1", "rbd", Path.of("/etc/ceph/ceph.conf"), "admin", null, null, Duration.ofSeconds(20));
        String doc = """
                group-format: 1
                fsid: f
                members: [{name: gw1, port: 1}, {name: gw2, port: 2}]
                targets:
                  - name: %s
                    luns: [{id: 0, backing: rbd, image: a, owner: gw1}]
                """.formatted(A);
        GroupDocument two = GroupDocument.parse(doc, "d", SecretCodec.PLAIN);
        GroupDocument three = GroupDocument.parse(
                doc.replace("{name: gw2, port: 2}]", "{name: gw2, port: 2}, {name: gw3, port: 3}]")
                        .replace("owner: gw1", "owner: gw3"),
                "d",
                SecretCodec.PLAIN);
        TargetConfig base = ConfigLoader.embeddedDefault();
        ConfigOperations.Plan plan = ConfigOperations.diff(
                base.withTargets(GroupTargets.forMember(two, gw1)),
                base.withTargets(GroupTargets.forMember(three, gw1)));
        assertTrue(plan.needRestart().isEmpty(), plan.needRestart().toString());
        assertEquals(1, plan.operations().size(), plan.operations().toString());
        assertTrue(
                plan.operations().get(0) instanceof RegistryOperation.SetPortGroups g
                        && g.alua().peers().size() == 2,
                plan.operations().toString());
    }
}
