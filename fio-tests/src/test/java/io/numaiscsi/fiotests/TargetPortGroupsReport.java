package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** REPORT TARGET PORT GROUPS as a test reads it: each descriptor as {@code group:state:[ports]}. */
final class TargetPortGroupsReport {
    static final int ACTIVE_OPTIMIZED = 0;
    static final int STANDBY = 2;

    private TargetPortGroupsReport() {}

    /** The groups {@code lun} reports through {@code c} (length-only format), past unit attentions. */
    static List<String> read(TestConnection c, int lun, Duration limit) throws IOException {
        byte[] cdb = {(byte) 0xA3, 0x0A, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
        ScsiResult r = RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(lun, itt, cdb, 256, TestConnection.READ_BIT, true));
            return c.awaitStatus(itt, limit);
        });
        assertEquals(ScsiResult.GOOD, r.status(), "REPORT TARGET PORT GROUPS: " + r);
        return groups(r.data(), 4);
    }

    /** The descriptors of parameter data {@code d} whose header is {@code headerLength} bytes. */
    static List<String> groups(byte[] d, int headerLength) {
        int end = 4 + (int) (((d[0] & 0xFFL) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF));
        assertEquals(d.length, end, "RETURN DATA LENGTH covers the descriptors");
        List<String> out = new ArrayList<>();
        for (int at = headerLength; at < end; ) {
            List<Integer> ports = new ArrayList<>();
            int count = d[at + 7] & 0xFF;
            for (int i = 0; i < count; i++) {
                ports.add(u16(d, at + 8 + 4 * i + 2));
            }
            out.add(u16(d, at + 2) + ":" + (d[at] & 0x0F) + ":" + ports);
            at += 8 + 4 * count;
        }
        return out;
    }

    /** The group that {@code groups} reports active/optimized, or -1. */
    static int optimizedGroup(List<String> groups) {
        for (String g : groups) {
            String[] parts = g.split(":");
            if (Integer.parseInt(parts[1]) == ACTIVE_OPTIMIZED) {
                return Integer.parseInt(parts[0]);
            }
        }
        return -1;
    }

    private static int u16(byte[] d, int at) {
        return (d[at] & 0xFF) << 8 | (d[at + 1] & 0xFF);
    }
}
