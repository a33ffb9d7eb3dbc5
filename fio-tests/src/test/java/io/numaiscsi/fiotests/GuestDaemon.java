package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Puts the daemon into a guest's run dir (shared over 9p): its jars under java/, a java @argfile, its config. */
final class GuestDaemon {
    /** Where the guest mounts the run dir. */
    static final String GUEST_RUN = "/vmrun";

    private GuestDaemon() {}

    static void stage(Path runDir, String config) throws IOException {
        Path jars = runDir.resolve("java");
        Files.createDirectories(jars);
        List<String> guestClasspath = new ArrayList<>();
        int i = 0;
        for (String entry : daemonClasspath().split(File.pathSeparator)) {
            Path src = Path.of(entry);
            if (!Files.exists(src)) {
                continue;
            }
            String name = String.format("%02d-%s", i++, src.getFileName());
            copyTree(src, jars.resolve(name));
            guestClasspath.add(GUEST_RUN + "/java/" + name);
        }
        Files.write(jars.resolve("args"), List.of("-cp", String.join(":", guestClasspath)));
        Files.writeString(runDir.resolve("target.yaml"), config);
    }

    private static String daemonClasspath() {
        String cp = System.getProperty("it.daemon.classpath", "");
        if (cp.isBlank() || cp.startsWith("${") || !cp.contains("target-daemon")) {
            fail("no daemon classpath: run through Maven (the fio-tests pom sets -Dit.daemon.classpath), got: " + cp);
        }
        return cp;
    }

    private static void copyTree(Path src, Path dst) throws IOException {
        if (Files.isRegularFile(src)) {
            Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        try (Stream<Path> files = Files.walk(src)) {
            for (Path f : files.toList()) {
                Path to = dst.resolve(src.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
