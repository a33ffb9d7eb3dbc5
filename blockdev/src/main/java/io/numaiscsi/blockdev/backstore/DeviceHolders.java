package io.numaiscsi.blockdev.backstore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Who holds a block device the daemon could not open exclusively: its mounts (from {@code /proc/mounts}) and its holders
 * (the device-mapper, md or bcache devices in {@code /sys/class/block/NAME/holders}). Read only to explain a refusal.
 */
final class DeviceHolders {
    private final Path procMounts;
    private final Path sysClassBlock;

    DeviceHolders(Path procMounts, Path sysClassBlock) {
        this.procMounts = procMounts;
        this.sysClassBlock = sysClassBlock;
    }

    static DeviceHolders system() {
        return new DeviceHolders(Path.of("/proc/mounts"), Path.of("/sys/class/block"));
    }

    /**
     * What holds {@code device}, whose node resolves to {@code realDevice} (e.g. {@code /dev/vg/lv} to
     * {@code /dev/dm-3}): "mounted on /mnt/x", "held by dm-4", or a guess when neither is found.
     */
    String describe(Path device, Path realDevice) {
        List<String> found = new ArrayList<>();
        for (String mountPoint : mountPoints(realDevice)) {
            found.add("mounted on " + mountPoint);
        }
        for (String holder : holders(realDevice.getFileName().toString())) {
            found.add("held by " + holder);
        }
        if (found.isEmpty()) {
            return "no mount or holder of it found, so another process has it open exclusively (a second daemon?)";
        }
        return String.join(", ", found);
    }

    private List<String> mountPoints(Path realDevice) {
        List<String> out = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(procMounts, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return out;
        }
        for (String line : lines) {
            String[] f = line.split(" ", -1);
            if (f.length < 2 || !f[0].startsWith("/")) {
                continue;
            }
            if (realPath(Path.of(unescape(f[0]))).equals(realDevice)) {
                out.add(unescape(f[1]));
            }
        }
        return out;
    }

    private List<String> holders(String name) {
        List<String> out = new ArrayList<>();
        Path dir = sysClassBlock.resolve(name).resolve("holders");
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path holder : entries) {
                out.add(holder.getFileName() + dmName(holder));
            }
        } catch (IOException e) {
            // explanation only
        }
        out.sort(null);
        return out;
    }

    /** " (vg-lv)" for a device-mapper holder, whose dm/name says what it is. */
    private static String dmName(Path holder) {
        try {
            Path name = holder.resolve("dm").resolve("name");
            return Files.isReadable(name)
                    ? " (" + Files.readString(name, StandardCharsets.UTF_8).strip() + ")"
                    : "";
        } catch (IOException e) {
            return "";
        }
    }

    static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    /** /proc/mounts writes space, tab, newline and backslash as octal escapes. */
    static String unescape(String field) {
        StringBuilder sb = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                sb.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
