package io.numaiscsi.fiotests.bench;

/**
 * One fio run of one cell against one target: fio's numbers, the target process's CPU seconds
 * over the whole fio run (login to logout), the wall time, and the host's busy fraction meanwhile
 * (all cores; shows how much else was running).
 */
record Sample(
        String cell,
        String target,
        int repeat,
        FioResult fio,
        double targetCpuSeconds,
        double wallSeconds,
        double hostBusy,
        String fioJson) {

    /** Target CPU microseconds per I/O; NaN for a failed run. */
    double cpuMicrosPerIo() {
        return fio.ok() ? targetCpuSeconds * 1e6 / fio.totalIos() : Double.NaN;
    }

    /** Target CPU as a fraction of one core over the run. */
    double targetCores() {
        return wallSeconds > 0 ? targetCpuSeconds / wallSeconds : Double.NaN;
    }
}
