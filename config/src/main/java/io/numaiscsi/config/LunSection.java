package io.numaiscsi.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code luns:} list of one target. */
final class LunSection {

    static final String KEY = "luns";
    static final List<String> KEYS = List.of(
            "id",
            "backing",
            "path",
            "size",
            "block-size",
            "physical-block-size",
            "read-only",
            "soft-threshold",
            "serial",
            "inject-latency",
            "inject-medium-error-every",
            "inject-no-space-after",
            "pool",
            "image",
            "ceph-conf",
            "rbd-user",
            "keyring",
            "rbd-timeout",
            "numa-cache",
            "owner");
    /** The keys of {@code backing: rbd} only. */
    static final List<String> RBD_KEYS =
            List.of("pool", "image", "ceph-conf", "rbd-user", "keyring", "rbd-timeout", "numa-cache", "owner");

    static final Duration MIN_RBD_TIMEOUT = Duration.ofSeconds(1);
    static final Duration MAX_RBD_TIMEOUT = Duration.ofMinutes(5);
    /** Upper bound of {@code inject-latency}: slow, but below any initiator's command timeout. */
    static final Duration MAX_INJECTED_LATENCY = Duration.ofSeconds(60);
    /** SAM-5 single-level (peripheral/flat) LUN addressing: 14 bits. */
    static final int MAX_LUN_ID = 16_383;

    static final int DEFAULT_BLOCK_SIZE = 512;
    /** READ CAPACITY (16) reports logical blocks per physical block as a power of two; 64K covers real media. */
    static final int MAX_PHYSICAL_BLOCK_SIZE = 65_536;

    static final int MAX_SERIAL_LENGTH = 64;

    /** Backing files and devices already claimed, across all targets: two LUNs on one would corrupt each other. */
    static final class BackingFiles {
        private final Map<Path, String> owners = new HashMap<>();
        /** Whether an RBD LUN may name its {@code owner}: in a gateway group's targets only. */
        boolean groupOwners;

        /** The files the running targets' LUNs hold. */
        static BackingFiles of(List<TargetDefinition> running) {
            BackingFiles files = new BackingFiles();
            for (TargetDefinition t : running) {
                for (LunDefinition lun : t.luns()) {
                    if (lun.path() != null) {
                        files.owners.put(lun.path(), "target " + t.name() + " LUN " + lun.id());
                    }
                }
            }
            return files;
        }
    }

    private LunSection() {}

    static List<LunDefinition> readAll(Fields target, Path dataDir, BackingFiles files) throws ConfigException {
        List<LunDefinition> luns = new ArrayList<>();
        Map<Integer, Cursor> ids = new HashMap<>();
        for (Cursor item : target.required(KEY).nonEmptyList("needs at least one LUN")) {
            Fields f = item.fields(KEYS);
            Cursor idAt = f.required("id");
            int id = idAt.integer(0, MAX_LUN_ID);
            Cursor previous = ids.putIfAbsent(id, idAt);
            if (previous != null) {
                throw idAt.error(
                        "duplicate LUN id " + id + " (also " + previous.path() + " at line " + previous.line() + ")");
            }
            luns.add(read(f, id, dataDir, files));
        }
        return luns;
    }

    /**
     * One LUN definition written on its own (an admin request), checked as in a config file and against the LUNs
     * already served: their ids in {@code target} and every target's backing files.
     */
    static LunDefinition readOne(
            Cursor item, Path dataDir, TargetDefinition target, List<TargetDefinition> all, boolean groupOwners)
            throws ConfigException {
        BackingFiles files = BackingFiles.of(all);
        files.groupOwners = groupOwners;
        Fields f = item.fields(KEYS);
        Cursor idAt = f.required("id");
        int id = idAt.integer(0, MAX_LUN_ID);
        for (LunDefinition lun : target.luns()) {
            if (lun.id() == id) {
                throw idAt.error("target " + target.name() + " already has LUN " + id);
            }
        }
        return read(f, id, dataDir, files);
    }

    private static LunDefinition read(Fields f, int id, Path dataDir, BackingFiles files) throws ConfigException {
        BackingType backing = backing(f);
        boolean device = backing == BackingType.BLOCK;
        boolean rbd = backing == BackingType.RBD;
        RbdSource image = rbd ? rbd(f, dataDir, files.groupOwners) : null;
        if (!rbd) {
            for (String key : RBD_KEYS) {
                Cursor k = f.optional(key);
                if (k != null) {
                    throw k.error("is only used with backing: rbd");
                }
            }
        }
        int blockSize = device ? LunDefinition.FROM_DEVICE : DEFAULT_BLOCK_SIZE;
        Cursor c = f.optional("block-size");
        if (c != null) {
            blockSize = c.integer(0, Integer.MAX_VALUE);
            if (blockSize != 512 && blockSize != 4096) {
                throw c.error(blockSize + " is not a supported block-size (use 512 or 4096)");
            }
        }
        long size = LunDefinition.FROM_DEVICE;
        c = device || rbd ? f.optional("size") : f.required("size");
        if (c != null && rbd) {
            throw c.error("is not used with backing: rbd: the LUN has the image's size (grow it with rbd resize)");
        }
        if (c != null) {
            size = c.size();
            // a device's block size is only known when it is opened; the smallest one divides every size it takes
            String misfit = LunDefinition.sizeProblem(size, blockSize == LunDefinition.FROM_DEVICE ? 512 : blockSize);
            if (misfit != null) {
                throw c.error(misfit);
            }
        }
        Path path = null;
        c = f.optional("path");
        if (backing == BackingType.RAM || backing == BackingType.NULL || rbd) {
            if (c != null) {
                throw c.error("is only used with backing: file or block (remove it for backing: "
                        + backing.name().toLowerCase(Locale.ROOT) + ")");
            }
        } else {
            if (c == null || c.text().isEmpty()) {
                throw f.missing(
                        "path",
                        device
                                ? "is required for backing: block (the device, e.g. /dev/sdb)"
                                : "is required for backing: file");
            }
            path = DaemonSection.path(c);
            if (device && !path.isAbsolute()) {
                throw c.error("\"" + path + "\" is not an absolute path: backing: block takes the device node, e.g."
                        + " /dev/sdb, /dev/zvol/pool/vol or /dev/vg/lv");
            }
            path = dataDir.resolve(path).normalize();
            String owner = files.owners.putIfAbsent(path, c.path());
            if (owner != null) {
                throw c.error(path + " is already the backing " + (device ? "device" : "file") + " of " + owner);
            }
        }
        return new LunDefinition(
                id,
                backing,
                path,
                size,
                blockSize,
                serial(f),
                faults(f),
                physicalBlockSize(f, blockSize),
                f.bool("read-only", false),
                softThreshold(f, backing),
                image);
    }

    /**
     * The image of a {@code backing: rbd} LUN: {@code image} (required), {@code pool} (rbd), {@code ceph-conf}
     * (/etc/ceph/ceph.conf; relative to the data directory), {@code rbd-user} (admin), {@code keyring} (the one
     * ceph.conf names), {@code rbd-timeout} (20s) and {@code numa-cache} (false).
     */
    private static RbdSource rbd(Fields f, Path dataDir, boolean groupOwners) throws ConfigException {
        String image = f.text("image");
        if (image == null || image.isBlank()) {
            throw f.missing("image", "is required for backing: rbd (the RBD image's name in its pool)");
        }
        String pool = f.text("pool");
        if (pool == null) {
            pool = RbdSource.DEFAULT_POOL;
        } else if (pool.isBlank()) {
            throw f.optional("pool").error("is empty (the Ceph pool of the image; rbd when left out)");
        }
        Path conf = RbdSource.DEFAULT_CEPH_CONF;
        Cursor c = f.optional("ceph-conf");
        if (c != null) {
            conf = dataDir.resolve(DaemonSection.path(c)).normalize();
        }
        String user = f.text("rbd-user");
        if (user == null) {
            user = RbdSource.DEFAULT_USER;
        } else if (user.isBlank() || user.chars().anyMatch(ch -> ch <= 0x20 || ch > 0x7e)) {
            throw f.optional("rbd-user").error("\"" + user + "\" is not a Ceph client id (e.g. admin or iscsi)");
        }
        Path keyring = null;
        c = f.optional("keyring");
        if (c != null) {
            keyring = dataDir.resolve(DaemonSection.path(c)).normalize();
        }
        Duration timeout = RbdSource.DEFAULT_TIMEOUT;
        c = f.optional("rbd-timeout");
        if (c != null) {
            timeout = c.duration(MIN_RBD_TIMEOUT, MAX_RBD_TIMEOUT, false);
        }
        String owner = f.text("owner");
        if (owner != null && !groupOwners) {
            throw f.optional("owner").error("names a gateway group member; only a gateway group's LUNs have one");
        }
        if (owner != null && !owner.matches("[a-z0-9][a-z0-9-]{0,31}")) {
            throw f.optional("owner").error("\"" + owner + "\" is not a gateway group member's name");
        }
        return new RbdSource(pool, image, conf, user, keyring, timeout, f.bool("numa-cache", false), owner);
    }

    /**
     * {@code soft-threshold: 80%}: the thin provisioning soft threshold, in percent of the LUN's size (1% to 99%; the
     * {@code %} may be left out). Only stores that can run out of space have one: a file or RAM.
     */
    private static int softThreshold(Fields f, BackingType backing) throws ConfigException {
        Cursor c = f.optional("soft-threshold");
        if (c == null) {
            return LunDefinition.NO_THRESHOLD;
        }
        if (backing != BackingType.FILE && backing != BackingType.RAM) {
            throw c.error("is only used with backing: file or ram (a "
                    + backing.name().toLowerCase(Locale.ROOT)
                    + " LUN is fully provisioned: it has no thin provisioning threshold)");
        }
        String t = c.text().trim();
        String digits = t.endsWith("%") ? t.substring(0, t.length() - 1).trim() : t;
        int percent = digits.matches("[0-9]{1,3}") ? Integer.parseInt(digits) : -1;
        if (percent < 1 || percent > 99) {
            throw c.error("\"" + t + "\" is not a percentage from 1% to 99% (e.g. 80%)");
        }
        return percent;
    }

    /**
     * {@code physical-block-size}: what the LUN reports as its physical block (e.g. 4096 on 512-byte blocks, "512e"),
     * so initiators align their writes to it. A block device's own physical block is checked when it is opened.
     */
    private static int physicalBlockSize(Fields f, int blockSize) throws ConfigException {
        Cursor c = f.optional("physical-block-size");
        if (c == null) {
            return LunDefinition.FROM_DEVICE;
        }
        int p = c.integer(512, MAX_PHYSICAL_BLOCK_SIZE);
        if (Integer.bitCount(p) != 1) {
            throw c.error(p + " is not a power of two");
        }
        if (blockSize != LunDefinition.FROM_DEVICE && p < blockSize) {
            throw c.error(p + " is smaller than block-size " + blockSize + " (a physical block holds whole logical "
                    + "blocks)");
        }
        return p;
    }

    /** The test/debug {@code inject-*} keys (README: "Fault injection"); absent keys inject nothing. */
    private static FaultInjection faults(Fields f) throws ConfigException {
        Duration latency = Duration.ZERO;
        Cursor c = f.optional("inject-latency");
        if (c != null) {
            latency = c.duration(Duration.ofMillis(1), MAX_INJECTED_LATENCY, true);
        }
        int every = f.integer("inject-medium-error-every", 0, Integer.MAX_VALUE, 0);
        long noSpaceAfter = Long.MAX_VALUE;
        c = f.optional("inject-no-space-after");
        if (c != null) {
            noSpaceAfter = c.text().equals("0") ? 0 : c.size();
        }
        return new FaultInjection(latency, every, noSpaceAfter);
    }

    private static BackingType backing(Fields f) throws ConfigException {
        Cursor c = f.present("backing");
        if (c == null) {
            return BackingType.FILE;
        }
        if (c.isNull()) {
            // YAML types a bare null as "no value"; written as such it is the null backing, anything else is empty
            if (c.rawText().equalsIgnoreCase("null")) {
                return BackingType.NULL;
            }
            throw c.error("has no value (use file, ram, block, rbd or null)");
        }
        String t = c.text();
        return switch (t.toLowerCase(Locale.ROOT)) {
            case "file" -> BackingType.FILE;
            case "ram" -> BackingType.RAM;
            case "null" -> BackingType.NULL;
            case "block" -> BackingType.BLOCK;
            case "rbd" -> BackingType.RBD;
            default -> throw c.error("\"" + t + "\" is not a backing (use file, ram, block, rbd or null)");
        };
    }

    /** SPC-4 unit serial number: printable ASCII. */
    private static String serial(Fields f) throws ConfigException {
        String serial = f.text("serial");
        if (serial == null) {
            return null;
        }
        if (serial.length() > MAX_SERIAL_LENGTH) {
            throw f.optional("serial").error("is longer than " + MAX_SERIAL_LENGTH + " characters");
        }
        if (!serial.chars().allMatch(ch -> ch >= 0x20 && ch <= 0x7e)) {
            throw f.optional("serial").error("\"" + serial + "\" must be printable ASCII (SPC-4 unit serial number)");
        }
        return serial;
    }
}
