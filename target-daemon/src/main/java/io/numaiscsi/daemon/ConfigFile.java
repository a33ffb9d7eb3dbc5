package io.numaiscsi.daemon;

import io.numaiscsi.config.TargetConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The {@code --config} file: where it is (none: the embedded default) and what it held when the daemon last read it
 * (start, SIGHUP) or wrote it ({@code config.save}), before the command-line overrides ({@code --portal},
 * {@code --data-dir}, {@code --event-model}) were applied.
 */
public final class ConfigFile {
    private final Path path;
    private volatile TargetConfig contents;

    public ConfigFile(Path path, TargetConfig contents) {
        this.path = path;
        this.contents = Objects.requireNonNull(contents, "contents");
    }

    /** The file, or null when the daemon runs the embedded default. */
    public Path path() {
        return path;
    }

    public TargetConfig contents() {
        return contents;
    }

    /** After the file was read again or written. */
    public void remember(TargetConfig newContents) {
        contents = Objects.requireNonNull(newContents, "newContents");
    }

    /** The file's name, or what stands for it, for log lines. */
    public String describe() {
        return path == null ? "the embedded default configuration" : path.toString();
    }
}
