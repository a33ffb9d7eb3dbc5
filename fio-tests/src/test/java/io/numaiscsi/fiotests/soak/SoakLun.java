package io.numaiscsi.fiotests.soak;

/**
 * One LUN under load: LUN 0 of its own target (so every fio session has a target of its own, as a volume per target
 * in most deployments), on one of the soak's daemons.
 *
 * @param daemon      the daemon serving it ({@link SoakDaemon#name()})
 * @param kind        what backs it
 * @param target      the target's IQN
 * @param bytes       its size
 * @param yaml        its entry under {@code luns:} (a YAML flow mapping)
 * @param writeBack   the daemon acknowledges writes once its cache has them
 */
public record SoakLun(String daemon, Kind kind, String target, long bytes, String yaml, boolean writeBack) {

    /** What backs a LUN, and whether its contents outlive the daemon. */
    public enum Kind {
        DISK_FILE("file on the machine's disk", true, true),
        TMPFS_FILE("file on tmpfs (/dev/shm)", true, true),
        BLOCK("block device (a loop device over a file on disk)", true, true),
        RAM("RAM", true, false),
        NULL("null (writes dropped: read-only load)", false, false),
        RBD("Ceph RBD image (throw-away cluster, memstore OSD)", true, true);

        private final String description;
        private final boolean verifiable;
        private final boolean survivesRestart;

        Kind(String description, boolean verifiable, boolean survivesRestart) {
            this.description = description;
            this.verifiable = verifiable;
            this.survivesRestart = survivesRestart;
        }

        public String description() {
            return description;
        }

        /** Written and read back (a null store drops writes, so it only gets reads). */
        public boolean verifiable() {
            return verifiable;
        }

        /** Holds what was written across a daemon restart (RAM does not, by design). */
        public boolean survivesRestart() {
            return survivesRestart;
        }
    }

    /** A short name for files, CSV rows and chart series: {@code wt-disk}, {@code wb-tmpfs}, ... */
    public String label() {
        return daemon + "-" + kind.name().toLowerCase().replace("_file", "").replace('_', '-');
    }

    /**
     * What a daemon restart leaves on it: a write-back LUN's acknowledged writes survive only a clean stop (SIGTERM
     * flushes the cache), a RAM LUN's nothing.
     */
    public boolean survives(boolean kill9) {
        return kind.survivesRestart() && !(writeBack && kill9);
    }
}
