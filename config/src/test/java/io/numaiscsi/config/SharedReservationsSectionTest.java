package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SharedReservationsSectionTest {
    private static SharedReservationsDefinition read(String value) throws ConfigException {
        String yaml = "targets:\n  - name: iqn.2026-11.io.numaiscsi:ha\n" + value
                + "    alua: {group: 1, state: active-optimized, peers: [{group: 2, state: standby}]}\n"
                + "    luns: [{id: 0, backing: ram, size: 1M}]\n";
        return ConfigLoader.parse(yaml, "t.yaml").targets().get(0).sharedReservations();
    }

    @Test
    void fileBackendWithItsDirectory() throws ConfigException {
        assertNull(read(""));
        assertEquals(
                new SharedReservationsDefinition("file", Path.of("/dev/shm/ha")),
                read("    shared-reservations: {backend: file, directory: /dev/shm/ha}\n"));
    }

    @Test
    void radosBackendWithItsDefaults() throws ConfigException {
        assertEquals(
                SharedReservationsDefinition.rados("rbd", Path.of("/etc/ceph/ceph.conf"), "admin", null),
                read("    shared-reservations: {backend: rados}\n"));
        assertEquals(
                SharedReservationsDefinition.rados("pr", Path.of("/c/ceph.conf"), "iscsi", Path.of("/c/k")),
                read("    shared-reservations: {backend: rados, pool: pr, ceph-conf: /c/ceph.conf, rbd-user: iscsi,"
                        + " keyring: /c/k}\n"));
    }

    @Test
    void badValuesNameTheirKey() {
        expect(
                "    shared-reservations: {backend: rados, directory: /x}\n",
                "targets[0].shared-reservations.directory",
                "is not used with backend rados");
        expect(
                "    shared-reservations: {backend: file, directory: /x, pool: rbd}\n",
                "targets[0].shared-reservations.pool",
                "is not used with backend file");
        expect(
                "    shared-reservations: {backend: rados, ceph-conf: ceph.conf}\n",
                "targets[0].shared-reservations.ceph-conf",
                "must be an absolute path (every gateway must name the same one)");
        expect(
                "    shared-reservations: {backend: nfs, directory: /x}\n",
                "targets[0].shared-reservations.backend",
                "unknown backend \"nfs\" (file, rados)");
        expect(
                "    shared-reservations: {backend: file, directory: shm/ha}\n",
                "targets[0].shared-reservations.directory",
                "must be an absolute path (every gateway must name the same one)");
        expect("    shared-reservations: {backend: file}\n", "targets[0].shared-reservations.directory", "is required");
    }

    @Test
    void aloneWithoutAluaIsRefused() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse(
                        "targets:\n"
                                + "  - name: iqn.2026-11.io.numaiscsi:ha\n"
                                + "    shared-reservations: {backend: file, directory: /dev/shm/ha}\n"
                                + "    luns: [{id: 0, backing: ram, size: 1M}]\n",
                        "t.yaml"));
        assertEquals("targets[0].shared-reservations", e.keyPath());
        assertEquals("needs alua on the same target (each gateway's port, alua.port, must be its own)", e.problem());
    }

    private static void expect(String yaml, String keyPath, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(yaml));
        assertEquals(3, e.line(), e.getMessage());
        assertEquals(keyPath, e.keyPath(), e.getMessage());
        assertEquals(problem, e.problem(), e.getMessage());
    }
}
