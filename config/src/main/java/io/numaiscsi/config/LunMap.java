package io.numaiscsi.config;

import java.util.List;
import java.util.Objects;

/**
 * One entry of a target's {@code lun-maps}: the initiators it names (iSCSI names, or {@link #OTHERS} for every
 * initiator no other entry names) see exactly these LUNs, each at the number {@link Mapped#as}.
 */
public record LunMap(List<String> initiators, List<Mapped> luns) {
    /** The initiator name that stands for every initiator no other entry names. */
    public static final String OTHERS = "*";

    /** The target's LUN {@code lun}, seen by these initiators as LUN {@code as}. */
    public record Mapped(int lun, int as) {}

    public LunMap {
        initiators = List.copyOf(initiators);
        luns = List.copyOf(luns);
        Objects.requireNonNull(initiators, "initiators");
    }
}
