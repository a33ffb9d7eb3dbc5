package io.numaiscsi.fiotests.bench;

/**
 * Renders the fio job file of one cell against one target. Each LUN gets its own job section with
 * its own initiator name (the libiscsi engine's per-job {@code initiator} option), so the 2-LUN
 * cell is two initiators on two LUNs; {@code numjobs} clones each section into separate sessions.
 */
final class FioJobFile {
    static final String INITIATOR_PREFIX = "iqn.2026-11.io.numaiscsi:bench-ini";

    private FioJobFile() {}

    static String render(Workload w, Target t, int runtimeSeconds) {
        if (w.luns() > t.luns().size()) {
            throw new IllegalArgumentException(w.id() + " needs " + w.luns() + " LUNs, target " + t.name() + " has "
                    + t.luns().size());
        }
        StringBuilder sb = new StringBuilder(512);
        sb.append("; ").append(w.id()).append(" against ").append(t.name()).append('\n');
        sb.append("[global]\n");
        sb.append("ioengine=libiscsi\n");
        sb.append("rw=").append(w.rw()).append('\n');
        sb.append("bs=").append(w.blockSize()).append('\n');
        sb.append("iodepth=").append(w.iodepth()).append('\n');
        sb.append("numjobs=").append(w.numjobs()).append('\n');
        sb.append("time_based=1\n");
        sb.append("runtime=").append(runtimeSeconds).append('\n');
        // no ramp_time: the target's CPU is read around the whole fio run, so every I/O must be counted
        sb.append("group_reporting=1\n");
        sb.append("randrepeat=0\n");
        sb.append("norandommap=1\n");
        for (int i = 0; i < w.luns(); i++) {
            sb.append("\n[lun").append(i).append("]\n");
            sb.append("filename=").append(t.fioFilename(i)).append('\n');
            sb.append("initiator=").append(INITIATOR_PREFIX).append(i).append('\n');
        }
        return sb.toString();
    }
}
