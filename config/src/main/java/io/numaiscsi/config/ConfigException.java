package io.numaiscsi.config;

/**
 * A configuration file that cannot be used. The message reads
 * {@code <source>:<line>: <key path>: <problem>}; the line is left out when unknown (0) and the
 * key path when the problem concerns the whole document.
 */
public final class ConfigException extends Exception {

    private final String source;
    private final int line;
    private final int column;
    private final String keyPath;
    private final String problem;

    public ConfigException(String source, int line, String keyPath, String problem) {
        this(source, line, 0, keyPath, problem, null);
    }

    ConfigException(String source, int line, int column, String keyPath, String problem, Throwable cause) {
        super(format(source, line, keyPath, problem), cause);
        this.source = source;
        this.line = line;
        this.column = column;
        this.keyPath = keyPath == null ? "" : keyPath;
        this.problem = problem;
    }

    private static String format(String source, int line, String keyPath, String problem) {
        StringBuilder sb = new StringBuilder(source);
        if (line > 0) {
            sb.append(':').append(line);
        }
        sb.append(": ");
        if (keyPath != null && !keyPath.isEmpty()) {
            sb.append(keyPath).append(": ");
        }
        return sb.append(problem).toString();
    }

    /** The file name (or other source name) the configuration came from. */
    public String source() {
        return source;
    }

    /** 1-based line of the offending key or value; 0 when the problem has no line (unreadable file). */
    public int line() {
        return line;
    }

    /** 1-based column, known for YAML syntax errors only; 0 otherwise. */
    public int column() {
        return column;
    }

    /** Dotted key path such as {@code targets[0].luns[1].size}; empty for document-level problems. */
    public String keyPath() {
        return keyPath;
    }

    /** The problem alone, without source, line and key path. */
    public String problem() {
        return problem;
    }
}
