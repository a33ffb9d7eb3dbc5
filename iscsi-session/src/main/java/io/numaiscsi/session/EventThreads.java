package io.numaiscsi.session;

import java.util.concurrent.Executor;

/**
 * Which thread runs what (ARCHITECTURE "Decentralized event processing"): after login a connection
 * moves to the home thread of its target; SCSI commands run on the thread of their LUN, which the logical unit
 * itself names ({@link io.numaiscsi.scsi.LogicalUnit#thread()}). In the centralized model every answer is the same
 * single thread.
 */
public interface EventThreads {
    /** The thread that owns the connections of a target after login. */
    Executor homeOf(ExportedTarget target);
}
