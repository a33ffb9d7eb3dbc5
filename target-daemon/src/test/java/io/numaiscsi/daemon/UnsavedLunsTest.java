package io.numaiscsi.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.TargetConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which LUNs a SIGHUP removes that only the admin API ever added. */
class UnsavedLunsTest {

    private static TargetConfig config(String luns) throws Exception {
        return ConfigLoader.parse(
                "targets:\n"
                        + "  - {name: iqn.2026-11.io.numaiscsi:a, luns: [" + luns + "]}\n"
                        + "  - {name: iqn.2026-11.io.numaiscsi:b, luns: [{id: 0, backing: ram, size: 1M}]}\n",
                "t.yaml");
    }

    private static String lun(int id) {
        return "{id: " + id + ", backing: ram, size: 1M}";
    }

    @Test
    void lunsNeitherInTheFileBeforeNorNowAreNamed() throws Exception {
        TargetConfig file = config(lun(0));
        TargetConfig running = config(lun(0) + ", " + lun(1) + ", " + lun(2));
        assertEquals(
                List.of("iqn.2026-11.io.numaiscsi:a LUN 1", "iqn.2026-11.io.numaiscsi:a LUN 2"),
                UnsavedLuns.droppedBy(running, file, file));
        assertEquals(
                List.of("iqn.2026-11.io.numaiscsi:a LUN 2"),
                UnsavedLuns.droppedBy(running, file, config(lun(0) + ", " + lun(1))),
                "LUN 1 is in the file now");
    }

    @Test
    void aLunTakenOutOfTheFileIsNoSurprise() throws Exception {
        TargetConfig before = config(lun(0) + ", " + lun(1));
        assertEquals(List.of(), UnsavedLuns.droppedBy(before, before, config(lun(0))));
    }

    @Test
    void aTargetGoneFromTheFileKeepsItsLunsUntilARestart() throws Exception {
        TargetConfig running = config(lun(0) + ", " + lun(1));
        TargetConfig onlyB = ConfigLoader.parse(
                "targets:\n" + "  - {name: iqn.2026-11.io.numaiscsi:b, luns: [{id: 0, backing: ram, size: 1M}]}\n",
                "t.yaml");
        assertEquals(List.of(), UnsavedLuns.droppedBy(running, config(lun(0)), onlyB));
    }
}
