package io.numaiscsi.daemon;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * The words a user sees for a failure (a start error, an admin answer, a log line): what the system said, never a
 * Java class name. The class and the stack trace belong in a debug log line beside it.
 */
public final class Reasons {
    /** {@code java.io.IOException: } and the like, which {@code Throwable.toString()} puts in front of a message. */
    private static final Pattern CLASS_NAME = Pattern.compile("^(?:[a-z][\\w$]*\\.)+[A-Z][\\w$]*(?::\\s*|$)");

    private Reasons() {}

    /** {@code e}'s reason in plain words: the first message in its chain, without class names. */
    public static String of(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getCause() != null && t.getCause().toString().equals(t.getMessage())) {
                continue; // a wrapper made of its cause alone: the cause says it better
            }
            if (t instanceof NoSuchFileException) {
                return "no such file or directory";
            }
            if (t instanceof AccessDeniedException) {
                return "permission denied";
            }
            if (t instanceof FileSystemException f && f.getReason() != null) {
                return f.getReason().substring(0, 1).toLowerCase(java.util.Locale.ROOT)
                        + f.getReason().substring(1);
            }
            if (t instanceof TimeoutException && t.getMessage() == null) {
                return "no answer in time";
            }
            String plain = withoutClassNames(t.getMessage());
            if (!plain.isEmpty()) {
                return plain;
            }
        }
        return "an unexpected error (with --log-level debug the log says where)";
    }

    /** {@code message} without the class names {@code toString()} of a wrapped exception put in front of it. */
    static String withoutClassNames(String message) {
        if (message == null) {
            return "";
        }
        String m = message.strip();
        for (String before = null; !m.equals(before); ) {
            before = m;
            m = CLASS_NAME.matcher(m).replaceFirst("").strip();
        }
        return m;
    }
}
