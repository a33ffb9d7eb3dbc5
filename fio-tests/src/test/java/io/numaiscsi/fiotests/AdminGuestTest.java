package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Live administration with the Linux kernel initiator logged in (qemu guest, {@code vm/guest/admin-live.sh}): the
 * guest asks, the host changes the running daemon through numa-iscsi-admin (add, grow and remove a LUN, add another,
 * save the config, restart the daemon), while a fio verify loop runs on LUN 0. The listing after the restart equals
 * the one saved, and the restart's SIGTERM asked the guest to log out first (it logs in again by itself).
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminGuestTest {
    static final long LUN0_BYTES = 128L << 20;
    static final long LUN1_BYTES = 64L << 20;
    static final long LUN1_GROWN_BYTES = 128L << 20;
    static final long LUN2_BYTES = 32L << 20;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(12);
    private static final ObjectMapper JSON = new ObjectMapper();

    private RestartableDaemon daemon;
    private AdminCliRun cli;

    @BeforeAll
    void start() throws Exception {
        VmRun.image();
        daemon = RestartableDaemon.start("AdminGuestTest", LUN0_BYTES);
        cli = new AdminCliRun("AdminGuestTest", daemon.dataDir().resolve("admin.sock"));
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private String admin(String... args) throws Exception {
        return cli.ok(args);
    }

    /** The targets and LUNs as listed, without what changes by itself (sessions, cache contents). */
    private JsonNode targets() throws Exception {
        JsonNode targets = JSON.readTree(admin("--json", "ls")).path("targets");
        for (JsonNode t : targets) {
            ((ObjectNode) t).remove("sessions");
            for (JsonNode l : t.path("luns")) {
                ((ObjectNode) l).remove("cache_held_bytes");
            }
        }
        return targets;
    }

    @Test
    void lunsAddedGrownRemovedSavedAndRestartedUnderTheKernelInitiator() throws Exception {
        String iqn = daemon.target().iqn();
        JsonNode[] saved = new JsonNode[2];
        int[] exitOnRestart = {-1};
        VmRun run = VmRun.run(
                "admin-live",
                daemon.target().port(),
                "admin-live.sh",
                Map.of(
                        "IQN",
                        iqn,
                        "LUN1_BYTES",
                        Long.toString(LUN1_BYTES),
                        "LUN1_GROWN_BYTES",
                        Long.toString(LUN1_GROWN_BYTES),
                        "LUN2_BYTES",
                        Long.toString(LUN2_BYTES)),
                GUEST_LIMIT,
                request -> {
                    switch (request) {
                        case "lun-add-1" ->
                            admin(
                                    "lun-add",
                                    iqn,
                                    "--id",
                                    "1",
                                    "--backing",
                                    "file",
                                    "--path",
                                    "lun1.img",
                                    "--size",
                                    "64M");
                        case "resize-1" -> admin("lun-resize", iqn, "--id", "1", "--size", "128M");
                        case "remove-1" -> admin("lun-remove", iqn, "--id", "1");
                        case "lun-add-2" ->
                            admin(
                                    "lun-add",
                                    iqn,
                                    "--id",
                                    "2",
                                    "--backing",
                                    "file",
                                    "--path",
                                    "lun2.img",
                                    "--size",
                                    "32M");
                        case "save-and-restart" -> {
                            saved[0] = targets();
                            admin("save");
                            exitOnRestart[0] = daemon.restart();
                            saved[1] = targets();
                        }
                        default -> {
                            return "error: unknown request " + request;
                        }
                    }
                    return "ok: " + request;
                });
        String context = "\n" + run.describe() + "\n" + daemon.logTail();
        if (Files.exists(run.serialLog())) {
            Files.copy(
                    run.serialLog(),
                    DaemonProcess.logDir().resolve("AdminGuestTest.serial.log"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
        assertTrue(run.succeeded(), "guest test admin-live.sh" + context);
        assertEquals(0, exitOnRestart[0], "the daemon stopped cleanly on SIGTERM" + context);
        assertEquals(saved[0], saved[1], "the configuration after the restart is the one saved" + context);
        assertEquals(List.of(0, 2), ids(saved[1].get(0)), context);
        String log = Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
        assertTrue(log.contains("stopping: asked 1 session(s) to log out"), "the async logout request" + context);
        assertTrue(log.contains("stopping: every session has logged out"), "the guest logged out as asked" + context);
        daemon.assertAlive();
    }

    private static List<Integer> ids(JsonNode target) {
        List<Integer> ids = new ArrayList<>();
        target.path("luns").forEach(l -> ids.add(l.path("id").asInt()));
        return ids;
    }
}
