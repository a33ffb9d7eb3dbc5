package io.numaiscsi.scsi;

import java.util.List;

/**
 * A parsed EXTENDED COPY (LID1) parameter list: its list identifier, how results are kept, and the segments in order.
 *
 * @param listIdUsage LIST ID USAGE: {@link #HOLD}, {@link #DISCARD} or {@link #NO_LIST_ID}
 */
record CopyPlan(int listId, int listIdUsage, List<CopySegment> segments) {
    /** Keep the results for RECEIVE COPY RESULTS; the list identifier is unique among this nexus's running copies. */
    static final int HOLD = 0;
    /** Results are not kept; the list identifier is still unique among this nexus's running copies. */
    static final int DISCARD = 2;
    /** No list identifier: the copy cannot be asked about. */
    static final int NO_LIST_ID = 3;

    boolean hasListId() {
        return listIdUsage != NO_LIST_ID;
    }

    boolean holdsResults() {
        return listIdUsage == HOLD;
    }
}
