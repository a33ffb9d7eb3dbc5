package io.numaiscsi.daemon.events;

/** How connections and LUNs map to threads. */
public enum EventModel {
    /** One event thread per LUN; a connection lives on its target's first LUN's thread after login. */
    PER_LUN,
    /** One event thread for every connection and LUN, as tgtd does: kept for A/B comparison. */
    CENTRALIZED
}
