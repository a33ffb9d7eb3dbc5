package io.numaiscsi.scsi;

/**
 * The transport's half of aborting a nexus's tasks: the logical unit aborts the tasks it is executing, but tasks still
 * collecting data or queued in the transport are the transport's to end. Called on the unit's thread; must not block.
 */
public interface TransportTaskAborts {

    /** Ends, without status, the tasks of {@code nexus} for {@code lun} that have not reached the logical unit yet. */
    void abort(ItNexus nexus, int lun);

    TransportTaskAborts NONE = (nexus, lun) -> {};
}
