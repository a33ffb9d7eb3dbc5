package io.numaiscsi.session;

/**
 * What every connection of the daemon shares: settings, the targets, the session table, the threads and the
 * daemon-wide guards.
 */
public record SessionServices(
        SessionSettings settings,
        TargetDirectory targets,
        SessionTable sessions,
        EventThreads eventThreads,
        EventThreadRegistry threadStats,
        ConnectionGuards guards) {

    /** Guards sized from {@code settings.resources()}. */
    public SessionServices(
            SessionSettings settings,
            TargetDirectory targets,
            SessionTable sessions,
            EventThreads eventThreads,
            EventThreadRegistry threadStats) {
        this(settings, targets, sessions, eventThreads, threadStats, ConnectionGuards.of(settings.resources()));
    }
}
