package io.numaiscsi.scsi;

/**
 * One block-to-block segment of an EXTENDED COPY, resolved: bytes {@code [sourceOffset, sourceOffset + length)} of
 * {@code source} go to {@code destinationOffset} of {@code destination}. Both ranges were checked against the units'
 * capacities when the parameter list was parsed.
 *
 * @param descriptorOffset where the segment descriptor starts in the parameter list (for sense field pointers)
 */
record CopySegment(
        LogicalUnit source,
        LogicalUnit destination,
        long sourceOffset,
        long destinationOffset,
        long length,
        int descriptorOffset) {

    /**
     * Whether the copy must run from the end backwards: the destination starts inside the source range on the same
     * unit, so copying forwards would overwrite source blocks before they are read. Either way the destination ends up
     * holding what the source held before the command (SPC-4 leaves overlapping copies to the copy manager; this one
     * copies as memmove does).
     */
    boolean backwards() {
        return source == destination && destinationOffset > sourceOffset && destinationOffset < sourceOffset + length;
    }
}
