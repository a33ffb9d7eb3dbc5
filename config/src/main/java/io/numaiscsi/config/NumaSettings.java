package io.numaiscsi.config;

import java.util.Objects;

/**
 * The {@code numa:} section.
 *
 * @param pretendNodes 0 = the real topology; N >= 2 = split the CPUs into N pretend nodes (no memory binding)
 * @param placement    where each target's event threads, cache blocks and buffers live
 */
public record NumaSettings(int pretendNodes, Placement placement) {

    /** How targets get their home node. */
    public enum Placement {
        /** Targets round robin over the nodes in config order (later ones on the node with the fewest LUNs). */
        SPREAD,
        /** Every target on the node of the first portal's network interface (the reference study's choice). */
        PORTAL_NODE
    }

    public static final NumaSettings DEFAULT = new NumaSettings(0, Placement.SPREAD);

    public NumaSettings {
        Objects.requireNonNull(placement, "placement");
    }

    public NumaSettings(int pretendNodes) {
        this(pretendNodes, Placement.SPREAD);
    }
}
