package io.numaiscsi.daemon.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.FaultInjection;
import io.numaiscsi.config.GroupDocument;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.RbdSource;
import io.numaiscsi.config.SecretCodec;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegistryOperation;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Admin requests as edits of a group's configuration: what the group keeps, who owns a new LUN, and refusals. */
class GroupEditsTest {
    private static final String T = "iqn.2026-11.io.numaiscsi:g";
    private final List<String> checked = new ArrayList<>();
    private final GroupEdits.ImageCheck images = (pool, image) -> {
        checked.add(pool + "/" + image);
        if (image.equals("missing")) {
            throw new IOException("RBD image " + pool + "/missing does not exist (create it with rbd create)");
        }
    };

    private static GroupDocument doc() throws ConfigException {
        return GroupDocument.parse("""
                group-format: 1
                fsid: f
                members: [{name: gw1, port: 1}, {name: gw2, port: 2}]
                targets:
                  - name: %s
                    luns:
                      - {id: 0, backing: rbd, image: a, owner: gw1}
                """.formatted(T), "doc", SecretCodec.PLAIN);
    }

    private static LunDefinition rbdLun(int id, String image, String owner) {
        RbdSource r = new RbdSource(
                "rbd",
                image,
                Path.of("/etc/ceph/member.conf"),
                "gw-user",
                Path.of("/k"),
                Duration.ofSeconds(20),
                false,
                owner);
        return new LunDefinition(id, BackingType.RBD, null, 0, 512, null, FaultInjection.NONE, 0, false, 0, r);
    }

    private GroupDocument apply(GroupDocument d, RegistryOperation... ops) throws IOException {
        return GroupEdits.of(List.of(ops), images).apply(d);
    }

    @Test
    void aNewLunGoesToTheLeastLoadedMemberWithoutTheMembersCredentials() throws Exception {
        GroupDocument d = apply(doc(), new RegistryOperation.AddLun(T, rbdLun(1, "b", null)));
        LunDefinition added = d.targets().get(0).lun(1);
        assertEquals("gw2", added.rbd().owner());
        assertEquals(RbdSource.DEFAULT_USER, added.rbd().user(), "each member reaches the image its own way");
        assertNull(added.rbd().keyring());
        assertEquals(List.of("rbd/b"), checked, "the image is looked at before the change is written");
        GroupDocument chosen = apply(doc(), new RegistryOperation.AddLun(T, rbdLun(1, "b", "gw1")));
        assertEquals("gw1", chosen.targets().get(0).lun(1).rbd().owner());
    }

    @Test
    void aTargetWithItsLunsIsOneEdit() throws Exception {
        String other = "iqn.2026-11.io.numaiscsi:h";
        TargetDefinition t = new TargetDefinition(other, null, List.of(), List.of(rbdLun(0, "c", null)));
        GroupDocument d = apply(
                doc(), new RegistryOperation.AddTarget(t), new RegistryOperation.AddLun(other, rbdLun(0, "c", null)));
        assertEquals(2, d.targets().size());
        assertEquals(1, d.targets().get(1).luns().size());
        assertNull(d.targets().get(1).alua());
    }

    @Test
    void refusalsNameTheirReasonAndChangeNothing() throws Exception {
        GroupDocument d = doc();
        IOException missing = assertThrows(
                IOException.class, () -> apply(d, new RegistryOperation.AddLun(T, rbdLun(1, "missing", null))));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
        LunDefinition ram = new LunDefinition(1, BackingType.RAM, null, 1 << 20, 512, null);
        assertRefused(() -> apply(d, new RegistryOperation.AddLun(T, ram)), "serves RBD images only");
        assertRefused(() -> apply(d, new RegistryOperation.AddLun(T, rbdLun(0, "b", null))), "has a LUN 0 already");
        assertRefused(() -> apply(d, new RegistryOperation.AddLun(T, rbdLun(1, "b", "gw9"))), "gw9 is not a member");
        assertRefused(() -> apply(d, new RegistryOperation.RemoveLun(T, 5)), "has no LUN 5");
        assertRefused(() -> apply(d, new RegistryOperation.RemoveTarget("iqn.2026-11.x:none")), "has no target");
        assertRefused(() -> apply(d, new RegistryOperation.ResizeLun(T, 0, 1 << 30)), "cannot be done in a gateway");
        assertEquals(doc(), d);
    }

    @Test
    void removalsAndSettingsApplyToTheGroupsTargets() throws Exception {
        GroupDocument d = apply(
                doc(), new RegistryOperation.AddLun(T, rbdLun(1, "b", null)), new RegistryOperation.RemoveLun(T, 0));
        assertEquals(
                List.of(1),
                d.targets().get(0).luns().stream().map(LunDefinition::id).toList());
        TargetDefinition aliased = new TargetDefinition(T, "disks", List.of("iqn.2026-11.example:host"), List.of());
        GroupDocument set = apply(d, new RegistryOperation.UpdateTarget(aliased));
        assertEquals("disks", set.targets().get(0).alias());
        assertEquals(1, set.targets().get(0).luns().size(), "an UpdateTarget leaves the LUNs");
        assertTrue(apply(set, new RegistryOperation.RemoveTarget(T)).targets().isEmpty());
    }

    private static void assertRefused(Executable e, String reason) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().contains(reason), x.getMessage());
    }
}
