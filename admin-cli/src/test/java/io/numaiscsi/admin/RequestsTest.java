package io.numaiscsi.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What each subcommand sends: the JSON-RPC method and params its options make, keys spelt as in the config file. */
class RequestsTest {
    @TempDir
    Path dir;

    /** The one request {@code args} send (the fake daemon answers {@code {}}), as compact JSON. */
    private JsonNode request(String... args) throws IOException {
        try (FakeDaemon daemon = FakeDaemon.answering(dir.resolve("admin.sock"), FakeDaemon.JSON.createObjectNode())) {
            FakeDaemon.Run r = daemon.cli(args);
            assertEquals(0, r.exit(), r.err());
            assertEquals(1, daemon.requests.size(), daemon.requests.toString());
            JsonNode request = daemon.requests.get(0);
            assertEquals("2.0", request.path("jsonrpc").asText());
            return request;
        }
    }

    private void assertSends(String method, String params, String... args) throws IOException {
        JsonNode request = request(args);
        assertEquals(method, request.path("method").asText(), String.join(" ", args));
        assertEquals(FakeDaemon.JSON.readTree(params), request.path("params"), String.join(" ", args));
    }

    @Test
    void listingsSendNoParams() throws IOException {
        for (Subcommand c : Commands.ALL) {
            if (List.of("status", "sessions", "portal-list", "chap-list", "cache", "threads")
                    .contains(c.name())) {
                assertSends(c.method(), "{}", c.name());
            }
        }
    }

    @Test
    void lsAsksForTargetsThenSessions() throws IOException {
        try (FakeDaemon daemon = FakeDaemon.answering(dir.resolve("ls.sock"), FakeDaemon.JSON.createArrayNode())) {
            FakeDaemon.Run r = daemon.cli("ls");
            assertEquals(0, r.exit(), r.err());
            assertEquals(
                    List.of("target.list", "session.list"),
                    daemon.requests.stream().map(q -> q.path("method").asText()).toList());
            assertEquals("o- targets [0]\n", r.out());
        }
    }

    @Test
    void lunAddSendsANullLun() throws IOException {
        assertSends(
                "lun.add",
                "{\"target\": \"iqn.x:t\", \"lun\": {\"id\": 3, \"backing\": \"null\", \"size\": \"1T\"}}",
                "lun-add",
                "iqn.x:t",
                "--id",
                "3",
                "--backing",
                "null",
                "--size",
                "1T");
    }

    @Test
    void lunAddSendsEveryRbdKeyAsTheConfigFileSpellsIt() throws IOException {
        assertSends(
                "lun.add",
                "{\"target\": \"iqn.x:t\", \"lun\": {\"id\": 1, \"backing\": \"rbd\", \"image\": \"vm1\", "
                        + "\"pool\": \"fast\", \"ceph-conf\": \"/etc/ceph/c2.conf\", \"rbd-user\": \"iscsi\", "
                        + "\"keyring\": \"/etc/ceph/iscsi.keyring\", \"rbd-timeout\": \"15s\", \"numa-cache\": true, "
                        + "\"read-only\": true}}",
                "lun-add",
                "iqn.x:t",
                "--id",
                "1",
                "--backing",
                "rbd",
                "--image",
                "vm1",
                "--pool",
                "fast",
                "--ceph-conf",
                "/etc/ceph/c2.conf",
                "--rbd-user",
                "iscsi",
                "--keyring",
                "/etc/ceph/iscsi.keyring",
                "--rbd-timeout",
                "15s",
                "--numa-cache",
                "--read-only");
    }

    @Test
    void lunAddSendsFileAndBlockKeys() throws IOException {
        assertSends(
                "lun.add",
                "{\"target\": \"t\", \"lun\": {\"id\": 2, \"backing\": \"file\", \"path\": \"d.img\", "
                        + "\"size\": \"10G\", \"block-size\": 4096, \"physical-block-size\": 4096, "
                        + "\"soft-threshold\": \"80%\", \"serial\": \"S1\"}}",
                "lun-add",
                "t",
                "--id",
                "2",
                "--backing",
                "file",
                "--path",
                "d.img",
                "--size",
                "10G",
                "--block-size",
                "4096",
                "--physical-block-size",
                "4096",
                "--soft-threshold",
                "80%",
                "--serial",
                "S1");
        assertSends(
                "lun.add",
                "{\"target\": \"t\", \"lun\": {\"id\": 0, \"backing\": \"block\", \"path\": \"/dev/sdb\"}}",
                "lun-add",
                "t",
                "--id",
                "0",
                "--backing",
                "block",
                "--path",
                "/dev/sdb");
    }

    @Test
    void lunRemoveAndResize() throws IOException {
        assertSends("lun.remove", "{\"target\": \"t\", \"id\": 1}", "lun-remove", "t", "--id", "1");
        assertSends(
                "lun.resize",
                "{\"target\": \"t\", \"id\": 1, \"size\": \"2G\"}",
                "lun-resize",
                "t",
                "--id",
                "1",
                "--size",
                "2G");
    }

    @Test
    void targetCreateSendsAConfigTargetEntryWithSecretsReadFromFiles() throws IOException {
        Path secret = Files.writeString(dir.resolve("s"), "twelve-chars-secret\nignored second line\n");
        Path mutual = Files.writeString(dir.resolve("m"), "another-secret-12");
        assertSends(
                "target.create",
                "{\"target\": {\"name\": \"iqn.x:db\", \"luns\": [{\"id\": \"0\", \"backing\": "
                        + "\"ram\", \"size\": \"1G\"}, {\"id\": \"1\", \"backing\": \"null\", \"size\": \"2G\"}], "
                        + "\"alias\": \"db\", \"allow\": [\"iqn.a\", \"iqn.b\"], \"allow-networks\": [\"10.0.0.0/8\"], "
                        + "\"chap\": {\"username\": \"u\", \"secret\": \"twelve-chars-secret\", \"mutual-username\": "
                        + "\"t\", \"mutual-secret\": \"another-secret-12\"}}}",
                "target-create",
                "iqn.x:db",
                "--lun",
                "id=0,backing=ram,size=1G",
                "--lun",
                "id=1, backing=null,size=2G",
                "--alias",
                "db",
                "--allow",
                "iqn.a",
                "--allow",
                "iqn.b",
                "--allow-network",
                "10.0.0.0/8",
                "--chap-user",
                "u",
                "--chap-secret-file",
                secret.toString(),
                "--mutual-user",
                "t",
                "--mutual-secret-file",
                mutual.toString());
    }

    @Test
    void targetSetSendsOnlyWhatIsGivenAndNullForWhatIsCleared() throws IOException {
        assertSends(
                "target.set",
                "{\"target\": \"t\", \"alias\": \"new\", \"allow-networks\": [\"10.1.0.0/16\", "
                        + "\"10.2.0.0/16\"], \"force\": true}",
                "target-set",
                "t",
                "--alias",
                "new",
                "--allow-network",
                "10.1.0.0/16",
                "--allow-network",
                "10.2.0.0/16",
                "--force");
        assertSends(
                "target.set",
                "{\"target\": \"t\", \"alias\": null, \"allow\": [\"ALL\"], \"allow-networks\": null, "
                        + "\"chap\": null}",
                "target-set",
                "t",
                "--no-alias",
                "--allow",
                "ALL",
                "--any-network",
                "--no-chap");
    }

    @Test
    void targetDeleteAndSessionLogout() throws IOException {
        assertSends("target.delete", "{\"target\": \"t\"}", "target-delete", "t");
        assertSends("target.delete", "{\"target\": \"t\", \"force\": true}", "target-delete", "t", "--force");
        assertSends("session.logout", "{\"tsih\": 7, \"force\": true}", "session-logout", "7", "--force");
    }

    @Test
    void chapSetNamesDiscoveryOrTheInitiator() throws IOException {
        Path secret = Files.writeString(dir.resolve("d"), "discovery-secret1\n");
        assertSends(
                "chap.set",
                "{\"discovery\": {\"username\": \"d\", \"secret\": \"discovery-secret1\"}}",
                "chap-set",
                "--discovery",
                "--user",
                "d",
                "--secret-file",
                secret.toString());
        assertSends("chap.set", "{\"discovery\": null}", "chap-set", "--discovery", "--none");
        assertSends(
                "chap.set", "{\"initiator\": \"iqn.i\", \"chap\": null}", "chap-set", "--initiator", "iqn.i", "--none");
    }

    @Test
    void portalsSaveAndLogLevel() throws IOException {
        assertSends("portal.add", "{\"portal\": \"127.0.0.1:3261\"}", "portal-add", "127.0.0.1:3261");
        assertSends("portal.remove", "{\"portal\": \"127.0.0.1:3261\"}", "portal-remove", "127.0.0.1:3261");
        assertSends("config.save", "{}", "save");
        assertSends("config.save", "{\"path\": \"" + Path.of("rel.yaml").toAbsolutePath() + "\"}", "save", "rel.yaml");
        assertSends(
                "log.level",
                "{\"level\": \"debug\", \"logger\": \"io.numaiscsi\"}",
                "log-level",
                "debug",
                "--logger",
                "io.numaiscsi");
    }

    @Test
    void theAnswerIsPrintedAsALineOrAsJson() throws IOException {
        JsonNode answer = FakeDaemon.JSON.readTree("{\"target\": \"iqn.x:t\", \"id\": 4}");
        try (FakeDaemon daemon = FakeDaemon.answering(dir.resolve("p.sock"), answer)) {
            FakeDaemon.Run text = daemon.cli("lun-add", "iqn.x:t", "--id", "4", "--backing", "ram", "--size", "1G");
            assertEquals("added LUN 4 to iqn.x:t\n", text.out());
            FakeDaemon.Run before = daemon.cli("--json", "lun-remove", "iqn.x:t", "--id", "4");
            assertEquals(answer, FakeDaemon.JSON.readTree(before.out()));
            FakeDaemon.Run after = FakeDaemon.run(
                    "lun-remove", "iqn.x:t", "--id", "4", "--json", "--socket", daemon.socket.toString());
            assertEquals(0, after.exit(), after.err());
            assertEquals(answer, FakeDaemon.JSON.readTree(after.out()), "--json and --socket after the command too");
            assertTrue(text.err().isEmpty() && before.err().isEmpty(), text.err() + before.err());
        }
    }

    @Test
    void groupCommandsSendTheirMembersAndLuns() throws IOException {
        assertSends(
                "group.move",
                "{\"target\": \"iqn.x:t\", \"lun\": 1, \"member\": \"gw3\"}",
                "group-move",
                "iqn.x:t",
                "--lun",
                "1",
                "--to",
                "gw3");
        assertSends("group.member-remove", "{\"member\": \"gw2\"}", "group-member-remove", "gw2");
        assertSends("group.rebalance", "{}", "group-rebalance");
        assertSends("group.status", "{}", "group-status");
        assertSends("group.restore", "{}", "group-restore");
    }

    @Test
    void lunMapsGoAsTheConfigFilesJson() throws IOException {
        assertSends(
                "target.set",
                "{\"target\": \"iqn.x:t\", \"lun-maps\": [{\"initiators\": [\"iqn.x:h\"], \"luns\": [0,"
                        + " {\"lun\": 2, \"as\": 1}]}]}",
                "target-set",
                "iqn.x:t",
                "--lun-maps",
                "[{\"initiators\": [\"iqn.x:h\"], \"luns\": [0, {\"lun\": 2, \"as\": 1}]}]");
        assertSends(
                "target.set",
                "{\"target\": \"iqn.x:t\", \"lun-maps\": null}",
                "target-set",
                "iqn.x:t",
                "--no-lun-maps");
    }

    @Test
    void groupStatusPrintsMembersThenLuns() throws IOException {
        JsonNode status = FakeDaemon.JSON.readTree("""
                {"group": "g", "member": "gw1", "object": "RADOS object rbd/numa-iscsi.group.g", "version": 7,
                 "placement": 2, "members": [{"name": "gw1", "port": 1, "up": true, "seen_seconds_ago": 1,
                 "version": 7}, {"name": "gw2", "port": 2, "up": false}],
                 "luns": [{"target": "iqn.x:t", "lun": 0, "image": "rbd/a", "owner": "gw2", "served_by": "gw1"},
                          {"target": "iqn.x:t", "lun": 1, "image": "rbd/b", "owner": "gw1", "served_by": null}]}
                """);
        try (FakeDaemon daemon = FakeDaemon.answering(dir.resolve("g.sock"), status)) {
            FakeDaemon.Run r = daemon.cli("group-status");
            assertEquals(0, r.exit(), r.err());
            assertEquals("""
                    group g, this gateway gw1, configuration version 7, placement 2 (RADOS object rbd/numa-iscsi.group.g)
                    members:
                      gw1  port 1  up  seen 1 s ago, version 7
                      gw2  port 2  DOWN  never seen
                    LUNs:
                      iqn.x:t LUN 0  rbd/a  owner gw2  served by gw1
                      iqn.x:t LUN 1  rbd/b  owner gw1  served by nobody
                    """, r.out());
        }
    }
}
