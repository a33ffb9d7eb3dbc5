package io.numaiscsi.config;

import io.numaiscsi.blockdev.WritePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** The {@code cache:} section; absent means the NUMA cache with every default (size-per-node auto). */
final class CacheSection {

    static final String KEY = "cache";
    static final List<String> KEYS = List.of(
            "mode",
            "size-per-node",
            "block-size",
            "partitions-per-node",
            "neighbours",
            "route-threshold",
            "write-policy",
            "zero-copy-min",
            "dirty-ratio",
            "dirty-expire",
            "backing-page-cache");
    static final Duration MIN_DIRTY_EXPIRE = Duration.ofMillis(100);
    static final Duration MAX_DIRTY_EXPIRE = Duration.ofHours(1);
    /** The number of a {@code dirty-ratio}, a fraction or a percentage (the writer checks its text against it too). */
    static final Pattern RATIO_NUMBER = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,6})?|\\.[0-9]{1,6}");

    private CacheSection() {}

    static CacheSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        CacheSettings d = CacheSettings.DEFAULT;
        CacheSettings.Mode mode = d.mode();
        Cursor c = f.optional("mode");
        if (c != null) {
            mode = switch (c.text().toLowerCase(Locale.ROOT)) {
                case "off" -> CacheSettings.Mode.OFF;
                case "page-cache" -> CacheSettings.Mode.PAGE_CACHE;
                case "numa" -> CacheSettings.Mode.NUMA;
                default -> throw c.error("\"" + c.text() + "\" is not a cache mode (use off, page-cache or numa)");
            };
        }
        long sizePerNode = d.sizePerNode();
        c = f.optional("size-per-node");
        if (c != null) {
            sizePerNode = c.text().equalsIgnoreCase("auto") ? CacheSettings.SIZE_AUTO : c.size();
            if (sizePerNode != CacheSettings.SIZE_AUTO && sizePerNode < (1 << 20)) {
                throw c.error(c.text() + " is too small (at least 1M, or auto)");
            }
        }
        int blockSize = d.blockSize();
        c = f.optional("block-size");
        if (c != null) {
            long b = c.size();
            if (b < 4096 || b > (1 << 20) || Long.bitCount(b) != 1) {
                throw c.error(c.text() + " is not a power of two in 4K..1M");
            }
            blockSize = (int) b;
        }
        int partitions = f.integer("partitions-per-node", 1, 256, d.partitionsPerNode());
        int neighbours = f.integer("neighbours", 1, 64, d.neighbours());
        int routeThreshold = d.routeThreshold();
        c = f.optional("route-threshold");
        if (c != null) {
            long t = c.size();
            if (t > (1 << 30)) {
                throw c.error(c.text() + " is out of range (1..1G)");
            }
            routeThreshold = (int) t;
        }
        WritePolicy policy = d.writePolicy();
        c = f.optional("write-policy");
        if (c != null) {
            policy = switch (c.text().toLowerCase(Locale.ROOT)) {
                case "write-through" -> WritePolicy.WRITE_THROUGH;
                case "write-back" -> WritePolicy.WRITE_BACK;
                default ->
                    throw c.error("\"" + c.text() + "\" is not a write policy (use write-through or write-back)");
            };
        }
        int zeroCopyMin = d.zeroCopyMin();
        c = f.optional("zero-copy-min");
        if (c != null) {
            if (c.text().equalsIgnoreCase("off")) {
                zeroCopyMin = CacheSettings.ZERO_COPY_OFF;
            } else {
                long z = c.size();
                if (z > (1 << 30)) {
                    throw c.error(c.text() + " is out of range (0..1G, or off)");
                }
                zeroCopyMin = (int) z;
            }
        }
        double dirtyRatio = d.dirtyRatio();
        c = f.optional("dirty-ratio");
        if (c != null) {
            dirtyRatio = ratio(c);
        }
        Duration dirtyExpire = d.dirtyExpire();
        c = f.optional("dirty-expire");
        if (c != null) {
            dirtyExpire = c.duration(MIN_DIRTY_EXPIRE, MAX_DIRTY_EXPIRE, false);
        }
        if (sizePerNode != CacheSettings.SIZE_AUTO && sizePerNode / partitions / blockSize < 2) {
            Cursor at = f.optional("size-per-node");
            ConfigException e = at != null
                    ? at.error(sizePerNode + " bytes give fewer than 2 blocks of " + blockSize + " per partition ("
                            + partitions + " partitions per node)")
                    : f.missing(
                            "size-per-node",
                            "the default " + sizePerNode + " bytes give fewer than 2 blocks of " + blockSize
                                    + " per partition (" + partitions + " partitions per node); set size-per-node");
            throw e;
        }
        if (sizePerNode / partitions > Integer.MAX_VALUE - 4096) {
            throw f.optional("size-per-node").error("one partition would exceed 2 GiB; raise partitions-per-node");
        }
        return new CacheSettings(
                mode,
                sizePerNode,
                blockSize,
                partitions,
                neighbours,
                routeThreshold,
                policy,
                zeroCopyMin,
                dirtyRatio,
                dirtyExpire,
                f.bool("backing-page-cache", d.backingPageCache()));
    }

    /** A fraction strictly between 0 and 1 ({@code 0.2}) or a percentage strictly between 0% and 100% ({@code 20%}). */
    private static double ratio(Cursor c) throws ConfigException {
        String t = c.text().trim();
        boolean percent = t.endsWith("%");
        String number = percent ? t.substring(0, t.length() - 1).trim() : t;
        if (!RATIO_NUMBER.matcher(number).matches()) {
            throw c.error("\"" + t + "\" is not a fraction (e.g. 0.2) or a percentage (e.g. 20%)");
        }
        double v = Double.parseDouble(number) / (percent ? 100 : 1);
        if (!(v > 0 && v < 1)) {
            throw c.error(t + " is out of range (a fraction between 0 and 1 or a percentage between 0% and 100%, "
                    + "both exclusive)");
        }
        return v;
    }
}
