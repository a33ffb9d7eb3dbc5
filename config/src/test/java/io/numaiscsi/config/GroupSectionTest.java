package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A member's file: its group settings, no targets, and written back as read. */
class GroupSectionTest {
    private static final String MEMBER = """
            portals: [127.0.0.2:3260]
            group:
              name: iscsi-a
              member: gw2
              ceph-conf: /etc/ceph/ceph.conf
              rbd-user: iscsi
              secret-key-file: /etc/numa-iscsi-target/group.key
            """;

    @Test
    void aMembersFileHoldsItsGroupAndNoTargets() throws ConfigException {
        TargetConfig c = ConfigLoader.parse(MEMBER, "member.yaml");
        assertTrue(c.targets().isEmpty());
        GroupSettings g = c.group();
        assertEquals(
                new GroupSettings(
                        "iscsi-a",
                        "gw2",
                        "rbd",
                        Path.of("/etc/ceph/ceph.conf"),
                        "iscsi",
                        null,
                        Path.of("/etc/numa-iscsi-target/group.key"),
                        Duration.ofSeconds(20)),
                g);
        assertEquals("numa-iscsi.group.iscsi-a", g.objectName());
        TargetConfig again = ConfigLoader.parse(ConfigWriter.write(c), "written.yaml");
        assertEquals(c, again);
    }

    @Test
    void targetsBesideAGroupAreRefusedNamingTheAdminTool() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse(
                        MEMBER
                                + "targets: [{name: iqn.2026-11.io.numaiscsi:x, luns: [{id: 0, backing: null, size: 1G}]}]\n",
                        "m"));
        assertTrue(e.getMessage().contains("manage them with numa-iscsi-admin"), e.getMessage());
    }

    @Test
    void badNamesAndRelativePathsAreRefused() {
        assertRefused(MEMBER.replace("member: gw2", "member: GW 2"), "is not a name");
        assertRefused(MEMBER.replace("secret-key-file: /etc", "secret-key-file: etc"), "absolute path");
        assertRefused(MEMBER.replace("name: iscsi-a", "nmae: iscsi-a"), "nmae");
    }

    @Test
    void anOwnerOutsideAGroupIsRefused() {
        assertRefused(
                "targets: [{name: iqn.2026-11.io.numaiscsi:x, luns: [{id: 0, backing: rbd, image: a, owner: gw1}]}]\n",
                "only a gateway group's LUNs have one");
    }

    @Test
    void withoutAGroupTheFileIsItsOwn() throws ConfigException {
        assertNull(ConfigLoader.embeddedDefault().group());
    }

    private static void assertRefused(String text, String reason) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(text, "m"), text);
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }
}
