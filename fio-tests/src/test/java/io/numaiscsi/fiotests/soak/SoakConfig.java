package io.numaiscsi.fiotests.soak;

import java.util.ArrayList;
import java.util.List;

/**
 * The two daemons' config files. {@code wt}: the daemon's defaults (no {@code cache:} section: the NUMA cache, write
 * through), a target per LUN under load, a target the chaos events use ({@code soak-chaos}: TMF, LUNs added, resized
 * and removed, a LUN 9 a SIGHUP adds and the next removes) and one with CHAP ({@code soak-chap}). {@code wb}: the same
 * defaults but {@code cache.write-policy: write-back}, which is daemon-wide, so the write-back LUNs need a daemon of
 * their own.
 */
final class SoakConfig {
    static final String IQN_PREFIX = "iqn.2026-11.io.numaiscsi:";
    static final String CHAOS_TARGET = IQN_PREFIX + "soak-chaos";
    static final String CHAP_TARGET = IQN_PREFIX + "soak-chap";
    /** The kernel initiator's target (a file LUN on the disk, ext4 in the guest): only when the guest runs. */
    static final String KERNEL_TARGET = IQN_PREFIX + "soak-kernel";

    static final String CHAP_USER = "soak";
    /** The secret the config file gives; the chaos event changes it through the admin API. */
    static final String CHAP_SECRET_FILE = "soakSecretFromFile1";

    static final int SIGHUP_LUN = 9;
    static final int ADDED_LUN = 7;

    private final List<SoakLun> luns;
    private final boolean kernelTarget;
    private boolean sighupLun;

    SoakConfig(List<SoakLun> luns, boolean kernelTarget) {
        this.luns = List.copyOf(luns);
        this.kernelTarget = kernelTarget;
    }

    static String targetOf(String daemon, SoakLun.Kind kind) {
        String k = kind.name().toLowerCase().replace("_file", "").replace('_', '-');
        return IQN_PREFIX + "soak-" + (daemon.equals("wt") ? "" : daemon + "-") + k;
    }

    /** Whether the wt config has the SIGHUP LUN now. */
    synchronized boolean sighupLun() {
        return sighupLun;
    }

    /** Flips the SIGHUP LUN; returns whether it is there now. */
    synchronized boolean toggleSighupLun() {
        sighupLun = !sighupLun;
        return sighupLun;
    }

    /** The config after the daemon and portal sections. */
    synchronized String yaml(String daemon) {
        StringBuilder y = new StringBuilder();
        if (daemon.equals("wb")) {
            y.append("cache:\n  write-policy: write-back\n");
        }
        y.append("targets:\n");
        for (SoakLun l : luns) {
            if (l.daemon().equals(daemon)) {
                y.append("  - name: ")
                        .append(l.target())
                        .append('\n')
                        .append("    luns:\n      - ")
                        .append(l.yaml())
                        .append('\n');
            }
        }
        if (daemon.equals("wt")) {
            y.append("  - name: ")
                    .append(CHAOS_TARGET)
                    .append('\n')
                    .append("    luns:\n      - {id: 0, backing: ram, size: 64M}\n");
            if (sighupLun) {
                y.append("      - {id: ").append(SIGHUP_LUN).append(", backing: ram, size: 8M}\n");
            }
            y.append("  - name: ")
                    .append(CHAP_TARGET)
                    .append('\n')
                    .append("    chap: {username: ")
                    .append(CHAP_USER)
                    .append(", secret: ")
                    .append(CHAP_SECRET_FILE)
                    .append("}\n")
                    .append("    luns:\n      - {id: 0, backing: ram, size: 16M}\n");
            if (kernelTarget) {
                y.append("  - name: ")
                        .append(KERNEL_TARGET)
                        .append('\n')
                        .append("    luns:\n      - {id: 0, backing: file, path: kernel.img, size: 1G}\n");
            }
        }
        return y.toString();
    }

    List<String> daemons() {
        List<String> names = new ArrayList<>();
        for (SoakLun l : luns) {
            if (!names.contains(l.daemon())) {
                names.add(l.daemon());
            }
        }
        return names;
    }
}
