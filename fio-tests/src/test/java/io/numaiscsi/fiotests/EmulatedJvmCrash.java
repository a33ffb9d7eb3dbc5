package io.numaiscsi.fiotests;

import java.util.regex.Pattern;

/**
 * A JVM in the qemu guest that died in code HotSpot generated (compiled or interpreted Java, its stubs, or an address
 * in no library at all: the code cache): that code under multi-threaded TCG occasionally crashes (fio-tests/README.md,
 * "Java in the guest"). A crash in a library's code (the daemon's C shims, libc, jnr-ffi, the JVM's own) is not one of
 * these: it may be ours.
 */
final class EmulatedJvmCrash {
    private static final String FATAL = "A fatal error has been detected by the Java Runtime Environment";
    private static final String FRAME = "Problematic frame:";
    /** HotSpot's "C" frame with an address and no {@code [library+offset]}: code mapped by no library. */
    private static final Pattern BARE_ADDRESS = Pattern.compile("C\\s+0x\\p{XDigit}+");

    private EmulatedJvmCrash() {}

    /** Whether {@code log} (a journal, a console) shows a JVM crash whose problematic frame is generated code. */
    static boolean in(String log) {
        if (!log.contains(FATAL)) {
            return false;
        }
        String[] lines = log.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].contains(FRAME)) {
                String frame =
                        lines[i + 1].substring(lines[i + 1].indexOf("# ") + 2).strip();
                return frame.startsWith("J ")
                        || frame.startsWith("j ")
                        || frame.startsWith("v ")
                        || BARE_ADDRESS.matcher(frame).matches();
            }
        }
        return false;
    }
}
