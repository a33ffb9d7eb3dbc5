package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.WritePolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The {@code cache:} and {@code numa:} sections: defaults, a full section, and each bad value's message. */
class CacheSectionTest {

    private static final String TARGETS =
            "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n    luns: [{id: 0, backing: ram, size: 1M}]\n";

    private static TargetConfig parse(String sections) throws ConfigException {
        return ConfigLoader.parse(TARGETS + sections, "t.yaml");
    }

    @Test
    void absentSectionsTakeDefaultsWithTheNumaCacheSizedAutomatically() throws ConfigException {
        TargetConfig c = parse("");
        assertEquals(CacheSettings.DEFAULT, c.cache());
        assertEquals(CacheSettings.Mode.NUMA, c.cache().mode());
        assertTrue(c.cache().autoSize());
        assertEquals(new NumaSettings(0, NumaSettings.Placement.SPREAD), c.numa());
        assertEquals(CacheSettings.DEFAULT, parse("cache:\nnuma:\n").cache());
        assertTrue(parse("cache:\n  size-per-node: auto\n").cache().autoSize());
    }

    @Test
    void placementAndSizeErrorsNameTheField() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse("numa:\n  placement: nearest\n"));
        assertTrue(
                e.getMessage().contains("numa.placement") && e.getMessage().contains("spread or portal-node"),
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> parse("cache:\n  size-per-node: 512K\n"));
        assertTrue(
                e.getMessage().contains("cache.size-per-node") && e.getMessage().contains("auto"), e.getMessage());
    }

    @Test
    void portalNodePlacement() throws ConfigException {
        assertEquals(
                NumaSettings.Placement.PORTAL_NODE,
                parse("numa:\n  placement: portal-node\n").numa().placement());
    }

    @Test
    void fullSections() throws ConfigException {
        TargetConfig c = parse("""
                cache:
                  mode: numa
                  size-per-node: 1G
                  block-size: 128K
                  partitions-per-node: 32
                  neighbours: 8
                  route-threshold: 32K
                  write-policy: write-back
                  zero-copy-min: 256K
                  dirty-ratio: 0.3
                  dirty-expire: 1500ms
                  backing-page-cache: false
                numa:
                  pretend-nodes: 2
                """);
        assertEquals(
                new CacheSettings(
                        CacheSettings.Mode.NUMA,
                        1L << 30,
                        128 << 10,
                        32,
                        8,
                        32 << 10,
                        WritePolicy.WRITE_BACK,
                        256 << 10,
                        0.3,
                        Duration.ofMillis(1500),
                        false),
                c.cache());
        assertEquals(
                CacheSettings.ZERO_COPY_OFF,
                parse("cache:\n  mode: numa\n  zero-copy-min: off\n").cache().zeroCopyMin());
        assertEquals(64 << 10, parse("cache:\n  mode: numa\n").cache().zeroCopyMin());
        assertEquals(2, c.numa().pretendNodes());
        assertEquals(
                CacheSettings.Mode.PAGE_CACHE,
                parse("cache:\n  mode: page-cache\n").cache().mode());
    }

    @Test
    void dirtyLimitsDefaultsFractionsAndPercentages() throws ConfigException {
        CacheSettings d = parse("cache:\n  mode: numa\n").cache();
        assertEquals(0.2, d.dirtyRatio());
        assertEquals(Duration.ofSeconds(5), d.dirtyExpire());
        assertEquals(0.25, parse("cache:\n  dirty-ratio: 25%\n").cache().dirtyRatio(), 1e-12);
        assertEquals(0.125, parse("cache:\n  dirty-ratio: 12.5%\n").cache().dirtyRatio(), 1e-12);
        assertEquals(0.05, parse("cache:\n  dirty-ratio: .05\n").cache().dirtyRatio(), 1e-12);
        assertEquals(0.99, parse("cache:\n  dirty-ratio: 0.99\n").cache().dirtyRatio(), 1e-12);
        assertEquals(
                Duration.ofMinutes(2),
                parse("cache:\n  dirty-expire: 2m\n").cache().dirtyExpire());
        assertEquals(
                Duration.ofMillis(100),
                parse("cache:\n  dirty-expire: 100ms\n").cache().dirtyExpire());
    }

    @Test
    void overridesKeepTheSections() throws ConfigException {
        TargetConfig c = parse("cache:\n  mode: numa\nnuma:\n  pretend-nodes: 3\n");
        TargetConfig moved = c.withDataDir(Path.of("/elsewhere")).withPortals(List.of(Portal.parse("127.0.0.1:3261")));
        assertEquals(c.cache(), moved.cache());
        assertEquals(c.numa(), moved.numa());
    }

    static Stream<Arguments> bad() {
        int line = 5; // the first line after TARGETS and the section header
        return Stream.of(
                Arguments.of(
                        "cache:\n  mode: fast\n",
                        line,
                        "cache.mode",
                        "\"fast\" is not a cache mode (use off, page-cache or numa)"),
                Arguments.of(
                        "cache:\n  block-size: 3K\n", line, "cache.block-size", "3K is not a power of two in 4K..1M"),
                Arguments.of(
                        "cache:\n  block-size: 2M\n", line, "cache.block-size", "2M is not a power of two in 4K..1M"),
                Arguments.of(
                        "cache:\n  partitions-per-node: 0\n",
                        line,
                        "cache.partitions-per-node",
                        "0 is out of range (1..256)"),
                Arguments.of("cache:\n  neighbours: 65\n", line, "cache.neighbours", "65 is out of range (1..64)"),
                Arguments.of(
                        "cache:\n  write-policy: lazy\n",
                        line,
                        "cache.write-policy",
                        "\"lazy\" is not a write policy (use write-through or write-back)"),
                Arguments.of(
                        "cache:\n  size-per-node: 1M\n",
                        line,
                        "cache.size-per-node",
                        "1048576 bytes give fewer than 2 blocks of 524288 per partition (16 partitions per node)"),
                Arguments.of(
                        "cache:\n  route-threshold: 0\n", line, "cache.route-threshold", "size must be greater than 0"),
                Arguments.of(
                        "cache:\n  block_size: 4K\n",
                        line,
                        "cache.block_size",
                        "unknown key (did you mean \"block-size\"?)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: 0\n",
                        line,
                        "cache.dirty-ratio",
                        "0 is out of range (a fraction between 0 and 1 or a percentage between 0% and 100%, both exclusive)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: 1\n",
                        line,
                        "cache.dirty-ratio",
                        "1 is out of range (a fraction between 0 and 1 or a percentage between 0% and 100%, both exclusive)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: 1.5\n",
                        line,
                        "cache.dirty-ratio",
                        "1.5 is out of range (a fraction between 0 and 1 or a percentage between 0% and 100%, both exclusive)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: 100%\n",
                        line,
                        "cache.dirty-ratio",
                        "100% is out of range (a fraction between 0 and 1 or a percentage between 0% and 100%, both exclusive)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: 0%\n",
                        line,
                        "cache.dirty-ratio",
                        "0% is out of range (a fraction between 0 and 1 or a percentage between 0% and 100%, both exclusive)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: -0.2\n",
                        line,
                        "cache.dirty-ratio",
                        "\"-0.2\" is not a fraction (e.g. 0.2) or a percentage (e.g. 20%)"),
                Arguments.of(
                        "cache:\n  dirty-ratio: lots\n",
                        line,
                        "cache.dirty-ratio",
                        "\"lots\" is not a fraction (e.g. 0.2) or a percentage (e.g. 20%)"),
                Arguments.of(
                        "cache:\n  dirty-expire: 5\n",
                        line,
                        "cache.dirty-expire",
                        "\"5\" is not a duration (use a number with us, ms, s, m or h, e.g. 5s; 0 disables)"),
                Arguments.of(
                        "cache:\n  dirty-expire: 0\n", line, "cache.dirty-expire", "0 is out of range (100ms..1h)"),
                Arguments.of(
                        "cache:\n  dirty-expire: 50ms\n",
                        line,
                        "cache.dirty-expire",
                        "50ms is out of range (100ms..1h)"),
                Arguments.of(
                        "cache:\n  dirty-expire: 2h\n", line, "cache.dirty-expire", "2h is out of range (100ms..1h)"),
                Arguments.of(
                        "numa:\n  pretend-nodes: 1\n",
                        line,
                        "numa.pretend-nodes",
                        "1 is not allowed (0 = the real topology, 2..64 pretend nodes)"),
                Arguments.of("numa:\n  pretend-nodes: 65\n", line, "numa.pretend-nodes", "65 is out of range (0..64)"));
    }

    @ParameterizedTest
    @MethodSource("bad")
    void badValuesNameLineAndKey(String yaml, int line, String keyPath, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
        assertEquals(keyPath, e.keyPath());
        assertEquals(problem, e.problem());
        assertEquals(line, e.line());
        assertEquals("t.yaml:" + line + ": " + keyPath + ": " + problem, e.getMessage());
    }
}
