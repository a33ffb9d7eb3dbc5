package io.numaiscsi.fiotests;

import java.util.regex.Pattern;

/** How the daemon's log marks trouble, for the tests that read it. */
public final class DaemonLogLines {
    /** A line at level ERROR, or an exception no thread caught (the JVM prints those without a level). */
    private static final Pattern ERROR = Pattern.compile("^(\\S+ ERROR |Exception in thread )");

    private DaemonLogLines() {}

    public static boolean isError(String line) {
        return ERROR.matcher(line).find();
    }
}
