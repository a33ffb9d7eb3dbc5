package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Asymmetric logical unit access (SPC-4 5.15): the target port groups of one SCSI target device that spans several
 * gateways, each gateway one target port. This gateway's port (its relative target port identifier, which is also its
 * iSCSI TPGT) is in {@link #local()}; the other gateways' groups are {@link #peers()}, known from the configuration.
 * A unit's states are the configured ones (implicit ALUA), unless the unit moves between gateways
 * ({@link UnitOwnership}: explicit ALUA, states follow the unit). Immutable.
 *
 * <p>{@link #NONE}, the default, is today's single-port target: TPGS 00b in INQUIRY, no REPORT TARGET PORT GROUPS.
 */
public final class TargetPortGroups {
    /** Asymmetric access states (SPC-4 table 184) a group can be configured in. */
    public enum AccessState {
        ACTIVE_OPTIMIZED(0x0, "active-optimized"),
        ACTIVE_NON_OPTIMIZED(0x1, "active-non-optimized"),
        STANDBY(0x2, "standby"),
        UNAVAILABLE(0x3, "unavailable"),
        /** Moving between gateways; never configured, only reported while a unit changes hands. */
        TRANSITIONING(0xF, "transitioning");

        final int code;
        private final String configName;

        AccessState(int code, String configName) {
            this.code = code;
            this.configName = configName;
        }

        /** The name in the configuration file. */
        public String configName() {
            return configName;
        }

        /** The state of that configuration name, or null. */
        public static AccessState byConfigName(String name) {
            for (AccessState s : values()) {
                if (s != TRANSITIONING && s.configName.equals(name)) {
                    return s;
                }
            }
            return null;
        }
    }

    /** One target port group: its identifier, state and the relative target port identifiers of its ports. */
    public record Group(int id, AccessState state, List<Integer> ports) {
        public Group {
            checkId("target port group", id);
            Objects.requireNonNull(state, "state");
            ports = List.copyOf(ports);
            if (ports.isEmpty()) {
                throw new IllegalArgumentException("target port group " + id + " has no port");
            }
            for (int p : ports) {
                checkId("relative target port identifier", p);
            }
        }
    }

    /** Not configured: a single target port (relative identifier 1), TPGS 00b. */
    public static final TargetPortGroups NONE = new TargetPortGroups(false, 1, null, List.of());

    /** IMPLICIT TRANSITION TIME of the extended header for states that change by configuration only: none. */
    private static final int IMPLICIT_TRANSITION_SECONDS = 0;
    /**
     * IMPLICIT TRANSITION TIME for units that move between gateways: a fenced gateway is back (standby) within about
     * this long, and an initiator retries commands refused while it transitions.
     */
    private static final int MOVING_TRANSITION_SECONDS = 30;
    /** PARAMETER DATA FORMAT (CDB byte 1 bits 7..5) of the extended header. */
    static final int EXTENDED_FORMAT = 1;

    private final boolean configured;
    private final int localPort;
    private final Group local;
    private final List<Group> peers;

    private TargetPortGroups(boolean configured, int localPort, Group local, List<Group> peers) {
        this.configured = configured;
        this.localPort = localPort;
        this.local = local;
        this.peers = List.copyOf(peers);
    }

    /**
     * ALUA with this gateway's port {@code localPort} in group {@code local}, the other gateways' groups {@code peers}.
     *
     * @throws IllegalArgumentException {@code localPort} not in {@code local}, a group or port identifier used twice
     */
    public static TargetPortGroups of(int localPort, Group local, List<Group> peers) {
        Objects.requireNonNull(local, "local");
        if (!local.ports().contains(localPort)) {
            throw new IllegalArgumentException(
                    "this gateway's port " + localPort + " is not in its group " + local.id());
        }
        Set<Integer> groups = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        List<Group> all = new ArrayList<>(peers.size() + 1);
        all.add(local);
        all.addAll(peers);
        for (Group g : all) {
            if (!groups.add(g.id())) {
                throw new IllegalArgumentException("target port group " + g.id() + " appears twice");
            }
            for (int p : g.ports()) {
                if (!ports.add(p)) {
                    throw new IllegalArgumentException(
                            "relative target port " + p + " is in two groups (or twice in one)");
                }
            }
        }
        return new TargetPortGroups(true, localPort, local, peers);
    }

    private static void checkId(String what, int id) {
        if (id < 1 || id > 0xFFFF) {
            throw new IllegalArgumentException(what + " must be 1..65535: " + id);
        }
    }

    /** Whether ALUA is configured (TPGS 01b, REPORT TARGET PORT GROUPS served). */
    public boolean configured() {
        return configured;
    }

    /** This gateway's relative target port identifier (and iSCSI target portal group tag). */
    public int localPort() {
        return localPort;
    }

    /** This gateway's group; null when not configured. */
    public Group local() {
        return local;
    }

    public List<Group> peers() {
        return peers;
    }

    /** Whether {@code relativePort} is another gateway's port of this target (REGISTER AND MOVE may name it). */
    boolean isPeerPort(int relativePort) {
        for (Group g : peers) {
            if (g.ports().contains(relativePort)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The TPGS bits of standard INQUIRY byte 5: 01b (implicit only) when configured; 11b (implicit and explicit) for a
     * unit that moves between gateways by SET TARGET PORT GROUPS.
     */
    int tpgsBits(boolean explicit) {
        return !configured ? 0 : explicit ? 0x30 : 0x10;
    }

    /**
     * REPORT TARGET PORT GROUPS parameter data (SPC-4 6.36) with the configured states: the length-only header, or with
     * {@code extended} the extended header (format type 001b, implicit transition time); then one descriptor per group,
     * this gateway's first. Only called when {@link #configured}.
     */
    void report(boolean extended, ByteBuf out) {
        int start = header(extended, IMPLICIT_TRANSITION_SECONDS, out);
        descriptor(local, local.state(), CONFIGURED_STATES, STATUS_IMPLICIT, out);
        for (Group g : peers) {
            descriptor(g, g.state(), CONFIGURED_STATES, STATUS_IMPLICIT, out);
        }
        out.setInt(start, out.writerIndex() - start - 4);
    }

    /**
     * REPORT TARGET PORT GROUPS for a unit that moves between gateways: this gateway's group in {@code localState}; of
     * the others, the one whose gateway has the unit ({@code ownerGroup}) active/optimized, the rest standby.
     * {@code byStpg}: the last change here was made by SET TARGET PORT GROUPS (status code 01h, else 02h).
     */
    void report(boolean extended, ByteBuf out, AccessState localState, int ownerGroup, boolean byStpg) {
        int start = header(extended, MOVING_TRANSITION_SECONDS, out);
        int status = byStpg ? STATUS_BY_STPG : STATUS_IMPLICIT;
        descriptor(local, localState, MOVING_STATES, status, out);
        for (Group g : peers) {
            AccessState s = localState != AccessState.ACTIVE_OPTIMIZED && g.id() == ownerGroup
                    ? AccessState.ACTIVE_OPTIMIZED
                    : AccessState.STANDBY;
            descriptor(g, s, MOVING_STATES, STATUS_IMPLICIT, out);
        }
        out.setInt(start, out.writerIndex() - start - 4);
    }

    /** Supported states: U_SUP, S_SUP, AN_SUP, AO_SUP (T_SUP 0: never reported transitioning). */
    private static final int CONFIGURED_STATES = 0x08 | 0x04 | 0x02 | 0x01;
    /** Supported states of a moving unit: T_SUP, S_SUP, AO_SUP. */
    private static final int MOVING_STATES = 0x80 | 0x02 | 0x01;

    private static final int STATUS_BY_STPG = 0x01;
    private static final int STATUS_IMPLICIT = 0x02;

    private static int header(boolean extended, int transitionSeconds, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0); // RETURN DATA LENGTH, set by the caller
        if (extended) {
            out.writeByte(EXTENDED_FORMAT << 4);
            out.writeByte(transitionSeconds);
            out.writeShort(0);
        }
        return start;
    }

    private static void descriptor(Group g, AccessState state, int supported, int status, ByteBuf out) {
        out.writeByte(state.code); // PREF 0
        out.writeByte(supported);
        out.writeShort(g.id());
        out.writeByte(0);
        out.writeByte(status);
        out.writeByte(0);
        out.writeByte(g.ports().size());
        for (int p : g.ports()) {
            out.writeShort(0);
            out.writeShort(p);
        }
    }

    /** Whether {@code group} is one of this target's groups (this gateway's or a peer's). */
    boolean hasGroup(int group) {
        if (local != null && local.id() == group) {
            return true;
        }
        for (Group g : peers) {
            if (g.id() == group) {
                return true;
            }
        }
        return false;
    }

    /**
     * What {@code state} of this gateway's group refuses (SPC-4 5.15.2.4), null when {@code kind} may run: the active
     * states allow everything; standby allows the commands that inspect or configure the unit (INQUIRY, REPORT LUNS,
     * REPORT and SET TARGET PORT GROUPS, REQUEST SENSE, LOG and MODE SENSE / SELECT, PERSISTENT RESERVE IN / OUT, READ
     * CAPACITY),
     * unavailable only INQUIRY, REPORT LUNS, REPORT / SET TARGET PORT GROUPS and REQUEST SENSE, transitioning INQUIRY,
     * REPORT LUNS, REPORT TARGET PORT GROUPS and REQUEST SENSE. Refused: NOT READY, LOGICAL UNIT NOT ACCESSIBLE with
     * TARGET PORT IN STANDBY STATE (04/0B), UNAVAILABLE STATE (04/0C) or ASYMMETRIC ACCESS STATE TRANSITION (04/0A).
     */
    SenseReason admit(CommandKind kind, AccessState state) {
        if (!configured) {
            return null;
        }
        return switch (state) {
            case STANDBY ->
                switch (kind) {
                    // READ CAPACITY as LIO allows it: Linux sizes a disk it finds through a standby path, and a path
                    // sized 0 fails every I/O dm-multipath sends it after a failover
                    case INQUIRY,
                            REPORT_LUNS,
                            REPORT_TARGET_PORT_GROUPS,
                            SET_TARGET_PORT_GROUPS,
                            REQUEST_SENSE,
                            LOG_SENSE,
                            MODE_SENSE,
                            MODE_SELECT,
                            PERSISTENT_RESERVE_IN,
                            PERSISTENT_RESERVE_OUT,
                            READ_CAPACITY_10,
                            READ_CAPACITY_16 -> null;
                    default -> SenseReason.TARGET_PORT_IN_STANDBY_STATE;
                };
            case UNAVAILABLE ->
                switch (kind) {
                    case INQUIRY, REPORT_LUNS, REPORT_TARGET_PORT_GROUPS, SET_TARGET_PORT_GROUPS, REQUEST_SENSE -> null;
                    default -> SenseReason.TARGET_PORT_IN_UNAVAILABLE_STATE;
                };
            case TRANSITIONING ->
                switch (kind) {
                    case INQUIRY, REPORT_LUNS, REPORT_TARGET_PORT_GROUPS, REQUEST_SENSE -> null;
                    default -> SenseReason.ASYMMETRIC_ACCESS_STATE_TRANSITION;
                };
            default -> null;
        };
    }

    @Override
    public String toString() {
        if (!configured) {
            return "single target port";
        }
        StringBuilder s = new StringBuilder("port ")
                .append(localPort)
                .append(" in group ")
                .append(local.id())
                .append(' ')
                .append(local.state().configName());
        for (Group g : peers) {
            s.append(", peer group ")
                    .append(g.id())
                    .append(' ')
                    .append(g.state().configName())
                    .append(" ports ")
                    .append(g.ports());
        }
        return s.toString();
    }
}
