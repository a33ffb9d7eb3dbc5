package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** Where and when the benchmark ran, for the README table. */
record MachineInfo(String date, int nproc, String cpuModel, String kernel, String java, String fio, String tgtd) {

    /** The first {@code model name} of /proc/cpuinfo (x86), else {@code Model} or {@code CPU part} (arm), else "unknown". */
    static String cpuModel(List<String> cpuinfo) {
        for (String key : List.of("model name", "Model", "CPU part")) {
            for (String line : cpuinfo) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                    return line.substring(colon + 1).trim();
                }
            }
        }
        return "unknown";
    }

    static MachineInfo probe(String javaVersion, String fioVersion, String tgtdVersion) throws IOException {
        return new MachineInfo(
                ZonedDateTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                Runtime.getRuntime().availableProcessors(),
                cpuModel(Files.readAllLines(Path.of("/proc/cpuinfo"))),
                Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim(),
                javaVersion,
                fioVersion,
                tgtdVersion);
    }

    String oneLine() {
        return "nproc " + nproc + ", " + cpuModel + ", kernel " + kernel + ", " + java + ", " + fio + ", tgt " + tgtd;
    }
}
