package io.numaiscsi.daemon.session;

/** What every connection of the daemon shares: settings, the targets, the session table and the threads. */
public record SessionServices(SessionSettings settings, TargetDirectory targets, SessionTable sessions,
                              EventThreads eventThreads, EventThreadRegistry threadStats) {
}
