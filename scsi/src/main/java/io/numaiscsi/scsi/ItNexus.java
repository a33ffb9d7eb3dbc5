package io.numaiscsi.scsi;

import java.util.Locale;
import java.util.Objects;

/**
 * The SAM I_T nexus: an initiator port (iSCSI name + ISID) and a target port (iSCSI name + TPGT).
 * Identity for reservations and unit attentions; two nexus objects with the same ports are equal,
 * so a new session of the same initiator port finds its registrations again.
 */
public final class ItNexus {
    private final String initiatorName;
    private final long isid;
    private final String targetName;
    private final int targetPortalGroupTag;
    private final String initiatorPortName;
    private final String targetPortName;
    private final int hash;

    public ItNexus(String initiatorName, long isid, String targetName, int targetPortalGroupTag) {
        if (isid < 0 || isid > 0xFFFF_FFFF_FFFFL) {
            throw new IllegalArgumentException("ISID must fit 48 bits: " + isid);
        }
        if (targetPortalGroupTag < 0 || targetPortalGroupTag > 0xFFFF) {
            throw new IllegalArgumentException("TPGT must fit 16 bits: " + targetPortalGroupTag);
        }
        // iSCSI names are case-insensitive (RFC 3722 stringprep folds to lower case)
        this.initiatorName =
                Objects.requireNonNull(initiatorName, "initiatorName").toLowerCase(Locale.ROOT);
        this.isid = isid;
        this.targetName = Objects.requireNonNull(targetName, "targetName").toLowerCase(Locale.ROOT);
        this.targetPortalGroupTag = targetPortalGroupTag;
        this.initiatorPortName = String.format(Locale.ROOT, "%s,i,0x%012x", this.initiatorName, isid);
        this.targetPortName = String.format(Locale.ROOT, "%s,t,0x%04x", this.targetName, targetPortalGroupTag);
        this.hash = initiatorPortName.hashCode() * 31 + targetPortName.hashCode();
    }

    public String initiatorName() {
        return initiatorName;
    }

    public long isid() {
        return isid;
    }

    public String targetName() {
        return targetName;
    }

    public int targetPortalGroupTag() {
        return targetPortalGroupTag;
    }

    /** RFC 7143 initiator port name: {@code <iqn>,i,0x<12 hex isid>}. */
    public String initiatorPortName() {
        return initiatorPortName;
    }

    /** RFC 7143 target port name: {@code <iqn>,t,0x<4 hex tpgt>}. */
    public String targetPortName() {
        return targetPortName;
    }

    /** SPC relative target port identifier; 0 is reserved, so TPGT 0 maps to 1. */
    int relativeTargetPortId() {
        return targetPortalGroupTag == 0 ? 1 : targetPortalGroupTag;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof ItNexus n
                && n.hash == hash
                && n.isid == isid
                && n.targetPortalGroupTag == targetPortalGroupTag
                && n.initiatorName.equals(initiatorName)
                && n.targetName.equals(targetName);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return initiatorPortName + " -> " + targetPortName;
    }
}
