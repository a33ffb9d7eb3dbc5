package io.numaiscsi.fiotests;

import io.numaiscsi.rbd.CephTestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The two gateways' files of {@code docs/high-availability.md} ("## 2. Gateway A", "## 3. Gateway B"), as the guest
 * test runs them: the page's YAML with only the site's names replaced by the test's (portal, target name, the
 * initiator allowed, Ceph's files and user, the image), so the setup the page tells an administrator to copy is the
 * one the kernel initiator is tested against.
 */
final class DocGatewayFiles {
    static final Path PAGE = Path.of("..", "docs", "high-availability.md");
    /** The guest's initiator name (vm/build-image.sh). */
    static final String GUEST_INITIATOR = "iqn.2026-11.io.numaiscsi:vm-initiator";

    private DocGatewayFiles() {}

    /** Gateway {@code letter}'s file (A or B) for the test: the daemon's portal is the harness's to give. */
    static String gateway(String letter, String iqn, String image, CephTestCluster c) throws IOException {
        String yaml = yamlBlockAfter(
                Files.readAllLines(PAGE, StandardCharsets.UTF_8),
                "## " + ("A".equals(letter) ? "2" : "3") + ". Gateway " + letter);
        Map<String, String> site = new LinkedHashMap<>();
        site.put("iqn.2026-11.io.example:ha", iqn);
        site.put("iqn.1993-08.org.debian:01:db1", GUEST_INITIATOR);
        site.put("/etc/ceph/ceph.client.iscsi.keyring", c.adminKeyring().toString());
        site.put("/etc/ceph/ceph.conf", c.conf().toString());
        site.put("rbd-user: iscsi", "rbd-user: admin");
        site.put("pool: rbd", "pool: " + CephTestCluster.POOL);
        site.put("image: vol0", "image: " + image);
        for (Map.Entry<String, String> e : site.entrySet()) {
            if (!yaml.contains(e.getKey())) {
                throw new IllegalStateException(PAGE + ", gateway " + letter + "'s file no longer has '" + e.getKey()
                        + "': update this test's substitutions with the page");
            }
            yaml = yaml.replace(e.getKey(), e.getValue());
        }
        return yaml.lines().filter(l -> !l.startsWith("portals:")).collect(Collectors.joining("\n", "", "\n"));
    }

    private static String yamlBlockAfter(List<String> lines, String heading) {
        int i = 0;
        while (i < lines.size() && !lines.get(i).startsWith(heading)) {
            i++;
        }
        while (i < lines.size() && !lines.get(i).equals("```yaml")) {
            i++;
        }
        StringBuilder yaml = new StringBuilder();
        for (i++; i < lines.size() && !lines.get(i).equals("```"); i++) {
            yaml.append(lines.get(i)).append('\n');
        }
        if (yaml.length() == 0) {
            throw new IllegalStateException(PAGE + " has no YAML block after '" + heading + "'");
        }
        return yaml.toString();
    }
}
