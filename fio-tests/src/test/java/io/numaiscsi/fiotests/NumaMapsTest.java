package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class NumaMapsTest {

    private static final long MIB_64 = 64L << 20;

    private static final NumaMaps MAPS = NumaMaps.parse(List.of(
            "00400000 default file=/usr/lib/jvm/java-17-openjdk-amd64/bin/java mapped=1 N0=1 kernelpagesize_kB=4",
            "7f0000000000 bind:0 anon=16385 dirty=16385 active=0 N0=16385 kernelpagesize_kB=4",
            "7f0004001000 bind:1 anon=16385 dirty=16385 active=0 N1=16385 kernelpagesize_kB=4",
            "7f0010000000 default anon=20000 dirty=20000 N0=12000 N1=8000 kernelpagesize_kB=4",
            "7f0020000000 default file=/usr/share/classes.jsa anon=30000 dirty=30000 N1=30000 kernelpagesize_kB=4",
            "7f0030000000 default",
            "7ffd00000000 default stack anon=30 dirty=30 N0=30 kernelpagesize_kB=4"));

    @Test
    void parsesPolicyFileAndPagesPerNode() {
        assertEquals(7, MAPS.mappings().size());
        NumaMaps.Mapping exe = MAPS.mappings().get(0);
        assertEquals("/usr/lib/jvm/java-17-openjdk-amd64/bin/java", exe.file());
        assertFalse(exe.anonymous());
        NumaMaps.Mapping region1 = MAPS.mappings().get(2);
        assertEquals("bind:1", region1.policy());
        assertNull(region1.file());
        assertEquals(16385L * 4096, region1.bytes());
        assertTrue(region1.allOn(1));
        assertFalse(region1.allOn(0));
        assertEquals(0, MAPS.mappings().get(5).pages(), "a mapping with nothing resident");
    }

    @Test
    void findsEachNodesRegionAmongAnonymousMappingsOnly() {
        assertEquals("7f0000000000", MAPS.regionOn(0, MIB_64).orElseThrow().address());
        assertEquals("7f0004001000", MAPS.regionOn(1, MIB_64).orElseThrow().address());
        // the split 78 MiB mapping is on neither node alone; the 117 MiB file mapping is not anonymous
        assertTrue(MAPS.regionOn(1, MIB_64 + (1L << 20)).isEmpty());
        assertTrue(MAPS.regionOn(2, 1).isEmpty());
    }

    @Test
    void largestAnonymousSkipsFiles() {
        List<NumaMaps.Mapping> top = MAPS.largestAnonymous(2);
        assertEquals("7f0010000000", top.get(0).address());
        assertEquals(2, top.size());
    }
}
