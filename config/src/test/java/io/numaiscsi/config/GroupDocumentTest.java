package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A gateway group's object: read back as written, secrets sealed, and every wrong document refused with its line. */
class GroupDocumentTest {
    private static final GroupSecretCodec CODEC = GroupSecretCodec.of(new byte[32]);
    private static final String TARGET = "iqn.2026-11.io.numaiscsi:group-disk";

    static final String DOC = """
            group-format: 1
            fsid: 5b3c4a1e-0000-4000-8000-000000000001
            placement: 2
            members:
              - {name: gw1, port: 1}
              - {name: gw2, port: 2}
            targets:
              - name: %s
                luns:
                  - {id: 0, backing: rbd, image: a, owner: gw1}
                  - {id: 1, backing: rbd, image: b, owner: gw2}
            """.formatted(TARGET);

    private static GroupDocument parse(String text) throws ConfigException {
        return GroupDocument.parse(text, "group object", CODEC);
    }

    @Test
    void aDocumentReadsBackAsWritten() throws ConfigException {
        GroupDocument doc = parse(DOC);
        assertEquals(2, doc.placement());
        assertEquals(List.of(new GroupDocument.Member("gw1", 1), new GroupDocument.Member("gw2", 2)), doc.members());
        assertEquals("gw2", doc.targets().get(0).lun(1).rbd().owner());
        String written = doc.write(CODEC);
        assertEquals(doc, parse(written));
        assertEquals(written, parse(written).write(CODEC));
    }

    @Test
    void chapSecretsAreSealedInTheObjectAndOpenWithTheSameKeyOnly() throws ConfigException {
        ChapCredentials chap =
                new ChapCredentials("user1", "a-secret-of-16-bytes".getBytes(StandardCharsets.UTF_8), null, null);
        GroupDocument doc = parse(DOC);
        TargetDefinition t = doc.targets().get(0);
        GroupDocument withChap = doc.withTargets(List.of(
                new TargetDefinition(t.name(), null, List.of(), t.luns(), chap, List.of(), null, null, List.of())));
        String written = withChap.write(CODEC);
        assertFalse(written.contains("a-secret-of-16-bytes"), written);
        assertTrue(written.contains("secret: " + GroupSecretCodec.PREFIX), written);
        assertEquals(chap, parse(written).targets().get(0).chap());
        byte[] otherKey = new byte[32];
        otherKey[0] = 1;
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> GroupDocument.parse(written, "group object", GroupSecretCodec.of(otherKey)));
        assertTrue(e.getMessage().contains("cannot be decrypted with this gateway's group key"), e.getMessage());
        ConfigException clear = assertThrows(
                ConfigException.class,
                () -> parse(written.replaceAll("secret: enc1:\\S+", "secret: a-secret-in-clear-text")));
        assertTrue(clear.getMessage().contains("is not an encrypted secret"), clear.getMessage());
    }

    @Test
    void aNewerFormatIsRefusedNamingTheUpgrade() {
        ConfigException e =
                assertThrows(ConfigException.class, () -> parse(DOC.replace("group-format: 1", "group-format: 2")));
        assertTrue(e.getMessage().contains("written by a newer version"), e.getMessage());
        assertTrue(e.getMessage().contains("upgrade this gateway"), e.getMessage());
    }

    @Test
    void wrongDocumentsAreRefusedWithTheirReason() {
        assertRefused(
                DOC.replace("backing: rbd, image: b, owner: gw2", "backing: ram, size: 1G"), "serves RBD images only");
        assertRefused(DOC.replace("owner: gw2", "owner: gw9"), "gw9, which is not a member");
        assertRefused(DOC.replace("{name: gw2, port: 2}", "{name: gw1, port: 2}"), "listed twice");
        assertRefused(DOC.replace("{name: gw2, port: 2}", "{name: gw2, port: 1}"), "belongs to two members");
        assertRefused(DOC.replace("{name: gw2, port: 2}", "{name: gw2, port: 17}"), "port");
        assertRefused(DOC.replace("image: b,", "image: b, numa-cache: true,"), "numa-cache");
        assertRefused(DOC.replace("fsid: ", "fsdi: "), "fsdi");
        assertRefused("group-format: 1\nfsid: [unclosed", "");
        assertRefused(
                DOC.replace("    luns:", "    alua: {port: 1, group: 1, state: standby}\n    luns:"),
                "each member sets them itself");
    }

    private static void assertRefused(String text, String reason) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(text), text);
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void aMemberServesTheGroupsTargetsWithItsOwnPortAndCredentials() throws ConfigException {
        GroupSettings gw2 = new GroupSettings(
                "g",
                "gw2",
                "pool2",
                Path.of("/etc/ceph/c2.conf"),
                "iscsi",
                Path.of("/etc/ceph/k2"),
                null,
                Duration.ofSeconds(20));
        List<TargetDefinition> served = GroupTargets.forMember(parse(DOC), gw2);
        TargetDefinition t = served.get(0);
        assertEquals(2, t.alua().port());
        assertEquals(2, t.alua().group());
        assertEquals(
                List.of(new AluaDefinition.Peer(1, "standby", List.of(1))),
                t.alua().peers());
        assertEquals(
                SharedReservationsDefinition.rados(
                        "pool2", Path.of("/etc/ceph/c2.conf"), "iscsi", Path.of("/etc/ceph/k2")),
                t.sharedReservations());
        RbdSource b = t.lun(1).rbd();
        assertEquals("iscsi", b.user());
        assertEquals(Path.of("/etc/ceph/k2"), b.keyring());
        assertEquals("b", b.image());
        assertEquals("gw2", b.owner());
        assertEquals(parse(DOC).targets().get(0).withLuns(t.luns()).luns(), t.luns());
        GroupSettings stranger = new GroupSettings(
                "g", "gw7", "rbd", Path.of("/etc/ceph/ceph.conf"), "admin", null, null, Duration.ofSeconds(20));
        assertTrue(GroupTargets.forMember(parse(DOC), stranger).isEmpty());
        assertNull(GroupTargets.shared(t).alua());
        assertNotNull(GroupTargets.shared(t).luns());
    }
}
