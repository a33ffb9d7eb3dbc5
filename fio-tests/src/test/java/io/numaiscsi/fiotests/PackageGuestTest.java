package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Debian package (packaging/) installed in the qemu guest booted with systemd as PID 1
 * ({@code vm/guest/package-systemd.sh}): systemd-analyze verify passes on the installed unit, {@code systemctl start}
 * serves a LUN the guest's own open-iscsi logs into on 127.0.0.1, {@code systemctl reload} applies a LUN added to
 * target.yaml, and {@code systemctl stop}, with the session logged in, exits 0 within TimeoutStopSec with the data
 * written through the write-back cache in the backing file.
 */
@Tag("it")
class PackageGuestTest {
    /** Boot under TCG, dpkg -i, two JVM starts (daemon, admin), the stop: about 3 minutes when all goes well. */
    static final Duration GUEST_LIMIT = Duration.ofMinutes(6);

    @Test
    void installedPackageServesReloadsAndStopsUnderSystemd() throws Exception {
        Path deb = Path.of(System.getProperty("it.deb", "missing.deb"));
        assertTrue(
                Files.isRegularFile(deb),
                deb + " missing: the packaging module builds it (mvn -pl fio-tests -am " + "verify builds it first)");
        VmRun run = boot(deb);
        String journal = read(run.out("journal-unit.txt"));
        if (!run.succeeded() && EmulatedJvmCrash.in(journal)) {
            // the JVM under emulation, not the package: one more boot (see EmulatedJvmCrash)
            System.out.println("PackageGuestTest: the guest's JVM crashed in its own Java code under TCG; booting once"
                    + " more. The first boot's unit journal:\n" + journal);
            run = boot(deb);
            journal = read(run.out("journal-unit.txt"));
        }
        System.out.println("PackageGuestTest: guest ran " + run.elapsed().toSeconds() + " s; timings (s): "
                + read(run.out("timings.txt")).replace('\n', ' '));
        assertTrue(
                run.succeeded(),
                "guest test package-systemd.sh\n" + run.describe() + "\n--- the unit's journal:\n" + journal);
    }

    private static VmRun boot(Path deb) throws Exception {
        VmRun run = VmRun.runUnderSystemd(
                "package",
                "package-systemd.sh",
                Map.of(),
                GUEST_LIMIT,
                runDir -> Files.copy(deb, runDir.resolve("numa-iscsi-target.deb")));
        if (Files.exists(run.serialLog())) {
            Files.copy(
                    run.serialLog(),
                    DaemonProcess.logDir().resolve("PackageGuestTest.serial.log"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
        return run;
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "(no " + file + ")";
    }
}
