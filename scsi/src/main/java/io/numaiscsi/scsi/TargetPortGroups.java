package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Implicit asymmetric logical unit access (SPC-4 5.15): the target port groups of one SCSI target device that spans
 * several gateways, each gateway one target port. This gateway's port (its relative target port identifier, which is
 * also its iSCSI TPGT) is in {@link #local()}; the other gateways' groups are {@link #peers()}, known from the
 * configuration only (implicit ALUA: states change by configuration, never by SET TARGET PORT GROUPS). Immutable.
 *
 * <p>{@link #NONE}, the default, is today's single-port target: TPGS 00b in INQUIRY, no REPORT TARGET PORT GROUPS.
 */
public final class TargetPortGroups {
  /** Asymmetric access states (SPC-4 table 184) a group can be configured in. */
  public enum AccessState {
    ACTIVE_OPTIMIZED(0x0, "active-optimized"),
    ACTIVE_NON_OPTIMIZED(0x1, "active-non-optimized"),
    STANDBY(0x2, "standby"),
    UNAVAILABLE(0x3, "unavailable");

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
        if (s.configName.equals(name)) {
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

  /** IMPLICIT TRANSITION TIME of the extended header: 0, no transition time is reported (states change by config). */
  private static final int IMPLICIT_TRANSITION_SECONDS = 0;
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
      throw new IllegalArgumentException("this gateway's port " + localPort + " is not in its group " + local.id());
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
          throw new IllegalArgumentException("relative target port " + p + " is in two groups (or twice in one)");
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

  /** The TPGS bits of standard INQUIRY byte 5: 01b (implicit only) when configured. */
  int tpgsBits() {
    return configured ? 0x10 : 0;
  }

  /**
   * REPORT TARGET PORT GROUPS parameter data (SPC-4 6.36): the length-only header, or with {@code extended} the
   * extended header (format type 001b, implicit transition time); then one descriptor per group, this gateway's
   * first. Only called when {@link #configured}.
   */
  void report(boolean extended, ByteBuf out) {
    int start = out.writerIndex();
    out.writeInt(0); // RETURN DATA LENGTH, set below
    if (extended) {
      out.writeByte(EXTENDED_FORMAT << 4);
      out.writeByte(IMPLICIT_TRANSITION_SECONDS);
      out.writeShort(0);
    }
    descriptor(local, out);
    for (Group g : peers) {
      descriptor(g, out);
    }
    out.setInt(start, out.writerIndex() - start - 4);
  }

  private static void descriptor(Group g, ByteBuf out) {
    out.writeByte(g.state().code); // PREF 0
    // supported states: T_SUP 0 (no transitioning is ever reported), O_SUP 0, LBD_SUP 0, U_SUP, S_SUP, AN_SUP, AO_SUP
    out.writeByte(0x08 | 0x04 | 0x02 | 0x01);
    out.writeShort(g.id());
    out.writeByte(0);
    out.writeByte(0x02); // STATUS CODE: altered by an implicit transition (the configuration), never by STPG
    out.writeByte(0);
    out.writeByte(g.ports().size());
    for (int p : g.ports()) {
      out.writeShort(0);
      out.writeShort(p);
    }
  }

  /**
   * What the state of this gateway's group refuses (SPC-4 5.15.2.4.4, 5.15.2.4.5), null when {@code kind} may run:
   * the active states allow everything; standby allows the commands that inspect or configure the unit (INQUIRY,
   * REPORT LUNS, REPORT TARGET PORT GROUPS, REQUEST SENSE, LOG and MODE SENSE / SELECT, PERSISTENT RESERVE IN / OUT),
   * unavailable only INQUIRY, REPORT LUNS, REPORT TARGET PORT GROUPS and REQUEST SENSE. Refused: NOT READY, LOGICAL
   * UNIT NOT ACCESSIBLE with TARGET PORT IN STANDBY STATE (04/0B) or UNAVAILABLE STATE (04/0C).
   */
  SenseReason admit(CommandKind kind) {
    if (!configured) {
      return null;
    }
    switch (local.state()) {
      case STANDBY:
        return switch (kind) {
          case INQUIRY, REPORT_LUNS, REPORT_TARGET_PORT_GROUPS, REQUEST_SENSE, LOG_SENSE, MODE_SENSE, MODE_SELECT,
               PERSISTENT_RESERVE_IN, PERSISTENT_RESERVE_OUT -> null;
          default -> SenseReason.TARGET_PORT_IN_STANDBY_STATE;
        };
      case UNAVAILABLE:
        return switch (kind) {
          case INQUIRY, REPORT_LUNS, REPORT_TARGET_PORT_GROUPS, REQUEST_SENSE -> null;
          default -> SenseReason.TARGET_PORT_IN_UNAVAILABLE_STATE;
        };
      default:
        return null;
    }
  }

  @Override
  public String toString() {
    if (!configured) {
      return "single target port";
    }
    StringBuilder s = new StringBuilder("port ").append(localPort).append(" in group ").append(local.id()).append(' ')
        .append(local.state().configName());
    for (Group g : peers) {
      s.append(", peer group ").append(g.id()).append(' ').append(g.state().configName()).append(" ports ")
          .append(g.ports());
    }
    return s.toString();
  }
}
