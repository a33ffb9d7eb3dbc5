package io.numaiscsi.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.config.ConfigException;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.Portal;
import io.numaiscsi.config.TargetConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built .deb as dpkg sees it: files and their modes, conffiles, Depends, launchers that only run Java, the
 * default config the daemon accepts, and a unit that {@code systemd-analyze verify} passes. Needs dpkg-deb and
 * systemd-analyze (Debian: dpkg, systemd).
 */
class DebianPackageTest {
    private static final Path DEB = Path.of(System.getProperty("deb.file", "target/missing.deb"));
    private static final String UNIT = "lib/systemd/system/numa-iscsi-target.service";

    /** path (without the leading "./") to "mode owner" as dpkg-deb -c prints them. */
    private static final Map<String, String> ENTRIES = new LinkedHashMap<>();

    @TempDir
    static Path root;

    @BeforeAll
    static void readPackage() throws IOException, InterruptedException {
        assertTrue(Files.isRegularFile(DEB), DEB + " missing: build it with mvn -pl packaging -am package");
        Pattern line = Pattern.compile("^(\\S+)\\s+(\\S+)\\s+\\d+\\s+\\S+\\s+\\S+\\s+\\./(.*)$");
        for (String l : run("dpkg-deb", "-c", DEB.toString()).split("\n")) {
            Matcher m = line.matcher(l);
            assertTrue(m.matches(), "unexpected dpkg-deb -c line: " + l);
            ENTRIES.put(m.group(3), m.group(1) + " " + m.group(2));
        }
        run("dpkg-deb", "-x", DEB.toString(), root.toString());
    }

    @Test
    void launchersAndNativeShimsAreInPlace() {
        assertEquals("-rwxr-xr-x root/root", ENTRIES.get("usr/sbin/numa-iscsi-target"));
        assertEquals("-rwxr-xr-x root/root", ENTRIES.get("usr/sbin/numa-iscsi-admin"));
        assertEquals("-rw-r--r-- root/root", ENTRIES.get("usr/lib/numa-iscsi-target/libnumaiscsi-uring.so"));
        assertEquals("-rw-r--r-- root/root", ENTRIES.get("usr/lib/numa-iscsi-target/libnumaiscsi-iser.so"));
        assertEquals("-rw-r--r-- root/root", ENTRIES.get(UNIT));
    }

    @Test
    void theDaemonAndEveryRuntimeJarAreInTheLibDirectory() {
        List<String> jars = new ArrayList<>();
        ENTRIES.forEach((path, mode) -> {
            if (path.endsWith(".jar")) {
                assertTrue(path.startsWith("usr/share/numa-iscsi-target/lib/"), path);
                assertEquals("-rw-r--r-- root/root", mode, path);
                jars.add(path.substring(path.lastIndexOf('/') + 1));
            }
        });
        for (String prefix : List.of(
                "target-daemon-",
                "admin-cli-",
                "scsi-",
                "iser-transport-",
                "config-",
                "picocli-",
                "netty-transport-native-epoll-",
                "jnr-ffi-",
                "logback-classic-",
                "micrometer-registry-prometheus-")) {
            assertTrue(jars.stream().anyMatch(j -> j.startsWith(prefix)), prefix + "* missing from " + jars);
        }
        assertFalse(jars.stream().anyMatch(j -> j.contains("junit") || j.contains("-tests")), jars.toString());
    }

    @Test
    void configIsAConffileAndDataDirectoryIsPrivate() throws IOException, InterruptedException {
        assertEquals("-rw------- root/root", ENTRIES.get("etc/numa-iscsi-target/target.yaml"));
        assertEquals("-rw-r--r-- root/root", ENTRIES.get("etc/default/numa-iscsi-target"));
        assertEquals("drwx------ root/root", ENTRIES.get("var/lib/numa-iscsi-target/"));
        assertEquals(
                List.of("/etc/numa-iscsi-target/target.yaml", "/etc/default/numa-iscsi-target"),
                List.of(run("dpkg-deb", "-I", DEB.toString(), "conffiles")
                        .strip()
                        .split("\n")));
    }

    @Test
    void nothingLandsOutsideThePackagesOwnPlaces() {
        for (String path : ENTRIES.keySet()) {
            assertTrue(
                    path.matches("(usr/|usr/share/|usr/lib/|usr/sbin/|lib/|lib/systemd/|lib/systemd/system/|etc/"
                            + "|etc/default/|var/|var/lib/)"
                            + "|usr/share/numa-iscsi-target/.*|usr/lib/numa-iscsi-target/.*|usr/sbin/numa-iscsi-.*"
                            + "|lib/systemd/system/numa-iscsi-target\\.service|etc/numa-iscsi-target/.*"
                            + "|etc/default/numa-iscsi-target|var/lib/numa-iscsi-target/"
                            + "|usr/share/man/(man8/)?(numa-iscsi-(target|admin)\\.8\\.gz)?"
                            + "|usr/share/doc/(numa-iscsi-target/.*)?"),
                    path);
        }
    }

    @Test
    void controlDependsOnJava17AndTheShimsLibraries() throws IOException, InterruptedException {
        String control = run("dpkg-deb", "-I", DEB.toString(), "control");
        assertTrue(control.contains("\nArchitecture: amd64\n"), control);
        String depends = control.lines()
                .filter(l -> l.startsWith("Depends: "))
                .findFirst()
                .orElse("");
        List<String> alternatives =
                List.of(depends.substring("Depends: ".length()).split(",\\s*"));
        assertTrue(alternatives.contains("openjdk-17-jre-headless | java17-runtime-headless"), depends);
        for (String lib : List.of("liburing2", "libibverbs1", "librdmacm1", "libnuma1")) {
            assertTrue(alternatives.contains(lib), lib + " missing from " + depends);
        }
        for (String script : List.of("postinst", "prerm", "postrm")) {
            assertTrue(run("dpkg-deb", "-I", DEB.toString()).contains("*  " + script), script + " not executable");
        }
    }

    @Test
    void launchersRunJavaOnlyWithTheInstalledShims() throws IOException {
        for (String launcher : List.of("numa-iscsi-target", "numa-iscsi-admin")) {
            String text = Files.readString(root.resolve("usr/sbin").resolve(launcher));
            assertTrue(text.contains("java\"") && text.contains("-cp '/usr/share/numa-iscsi-target/lib/*'"), text);
            assertFalse(text.matches("(?s).*\\b(apt|apt-get|mvn|sudo)\\b.*"), launcher + " runs more than Java");
        }
        String daemon = Files.readString(root.resolve("usr/sbin/numa-iscsi-target"));
        assertTrue(daemon.contains("io.numaiscsi.daemon.Main")
                && daemon.contains("-Dnumaiscsi.uring.shim=$NATIVE/" + "libnumaiscsi-uring.so")
                && daemon.contains("-Dnumaiscsi.iser.shim=$NATIVE/libnumaiscsi-iser.so"));
        assertTrue(Files.readString(root.resolve("usr/sbin/numa-iscsi-admin")).contains("io.numaiscsi.admin.AdminCli"));
    }

    /** The packaged numa-iscsi-admin, its jar directory moved into the unpacked tree, answers a subcommand's --help. */
    @Test
    void theAdminLauncherRunsTheCliFromThePackagesJars() throws IOException, InterruptedException {
        String launcher = Files.readString(root.resolve("usr/sbin/numa-iscsi-admin"));
        Path moved = Files.createDirectories(root.resolve("launch")).resolve("numa-iscsi-admin");
        Files.writeString(
                moved,
                launcher.replace(
                        "'/usr/share/numa-iscsi-target/lib/*'",
                        "'" + root.resolve("usr/share/numa-iscsi-target/lib") + "/*'"));
        ProcessBuilder admin = new ProcessBuilder("sh", moved.toString(), "lun-add", "--help");
        admin.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = admin.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String usage = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), usage);
        assertTrue(usage.startsWith("Usage: numa-iscsi-admin lun-add") && usage.contains("--image=NAME"), usage);
    }

    @Test
    void theDefaultConfigServesALunOnLoopback() throws ConfigException {
        TargetConfig config = ConfigLoader.load(root.resolve("etc/numa-iscsi-target/target.yaml"));
        assertEquals(List.of(new Portal("127.0.0.1", 3260)), config.portals());
        assertEquals(Path.of("/var/lib/numa-iscsi-target"), config.daemon().dataDir());
        assertEquals("info", config.daemon().logLevel());
        assertEquals(1, config.targets().size());
        assertEquals(1, config.targets().get(0).luns().size());
    }

    @Test
    void manPagesAreGzippedTroff() throws IOException {
        for (String page : List.of("numa-iscsi-target", "numa-iscsi-admin")) {
            Path gz = root.resolve("usr/share/man/man8/" + page + ".8.gz");
            try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
                String troff = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(troff.startsWith(".TH " + page.toUpperCase(Locale.ROOT) + " 8 "), troff);
                assertTrue(troff.contains(".SH SYNOPSIS") && troff.contains(".SH EXIT STATUS"), page);
            }
        }
    }

    /**
     * {@code systemd-analyze verify} of the packaged unit, with its Exec paths moved into the unpacked tree (it checks
     * that they are executable) and MANPATH there (it checks the Documentation= man pages).
     */
    @Test
    void systemdAnalyzeVerifyPassesOnTheUnit() throws IOException, InterruptedException {
        String unit = Files.readString(root.resolve(UNIT));
        assertTrue(unit.contains("\nExecStart=/usr/sbin/numa-iscsi-target "), unit);
        assertTrue(
                unit.contains("\nType=notify\n")
                        && unit.contains("\nLimitMEMLOCK=infinity\n")
                        && unit.contains("\nExecReload=/bin/kill -HUP $MAINPID\n"),
                unit);
        Path checked = Files.createDirectories(root.resolve("verify")).resolve("numa-iscsi-target.service");
        Files.writeString(checked, unit.replace("ExecStart=/usr/sbin/", "ExecStart=" + root + "/usr/sbin/"));
        ProcessBuilder verify =
                new ProcessBuilder("systemd-analyze", "verify", checked.toString()).redirectErrorStream(true);
        verify.environment().put("MANPATH", root.resolve("usr/share/man").toString());
        Process p = verify.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertEquals("", out.strip());
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command));
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed");
        assertNotNull(out);
        return out;
    }
}
