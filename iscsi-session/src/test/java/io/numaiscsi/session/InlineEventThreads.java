package io.numaiscsi.session;

import java.util.concurrent.Executor;

/** Event threads for session-layer tests: every command runs on the connection's own thread. */
public final class InlineEventThreads implements EventThreads {
    public static final InlineEventThreads INSTANCE = new InlineEventThreads();

    private InlineEventThreads() {}

    @Override
    public Executor homeOf(ExportedTarget target) {
        return null;
    }
}
