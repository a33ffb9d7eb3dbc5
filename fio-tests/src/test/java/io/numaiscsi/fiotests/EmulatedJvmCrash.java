package io.numaiscsi.fiotests;

/**
 * A JVM in the qemu guest that died in its own compiled or interpreted Java code: HotSpot's generated code under
 * multi-threaded TCG occasionally crashes (fio-tests/README.md, "Java in the guest"). A crash in native code (the
 * daemon's C shims, libc, jnr-ffi) is not one of these: it may be ours.
 */
final class EmulatedJvmCrash {
    private static final String FATAL = "A fatal error has been detected by the Java Runtime Environment";
    private static final String FRAME = "Problematic frame:";

    private EmulatedJvmCrash() {}

    /** Whether {@code log} (a journal, a console) shows a JVM crash whose problematic frame is Java code. */
    static boolean in(String log) {
        if (!log.contains(FATAL)) {
            return false;
        }
        String[] lines = log.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].contains(FRAME)) {
                String frame =
                        lines[i + 1].substring(lines[i + 1].indexOf("# ") + 2).strip();
                return frame.startsWith("J ") || frame.startsWith("j ");
            }
        }
        return false;
    }
}
