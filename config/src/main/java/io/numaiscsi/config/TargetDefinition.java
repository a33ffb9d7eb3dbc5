package io.numaiscsi.config;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One iSCSI target.
 *
 * @param name              iSCSI name (iqn., eui. or naa. form)
 * @param alias             TargetAlias, or null
 * @param allowedInitiators initiator names allowed to log in; empty means any initiator
 * @param luns              logical units, ids unique
 * @param chap              CHAP credentials an initiator must prove to log in, or null (no authentication)
 * @param allowNetworks     source networks initiators may log in from; empty means any
 * @param alua              this gateway's target port and the target port groups (implicit ALUA), or null: none
 * @param sharedReservations where the gateways of a pair share the LUNs' persistent reservations, or null: here alone
 * @param lunMaps           which LUNs each initiator sees, at which numbers (LUN masking); empty: all, as they are
 */
public record TargetDefinition(
        String name,
        String alias,
        List<String> allowedInitiators,
        List<LunDefinition> luns,
        ChapCredentials chap,
        List<NetworkRange> allowNetworks,
        AluaDefinition alua,
        SharedReservationsDefinition sharedReservations,
        List<LunMap> lunMaps) {

    public TargetDefinition {
        Objects.requireNonNull(name, "name");
        allowedInitiators = List.copyOf(allowedInitiators);
        luns = List.copyOf(luns);
        allowNetworks = List.copyOf(allowNetworks);
        lunMaps = List.copyOf(lunMaps);
    }

    /** A target without authentication, network restriction, ALUA, shared reservations or LUN maps. */
    public TargetDefinition(String name, String alias, List<String> allowedInitiators, List<LunDefinition> luns) {
        this(name, alias, allowedInitiators, luns, null, List.of(), null, null, List.of());
    }

    /** This target with other LUNs, everything else kept. */
    public TargetDefinition withLuns(List<LunDefinition> newLuns) {
        // a LUN gone is gone from the maps too
        List<LunMap> maps = lunMaps.stream()
                .map(m -> new LunMap(
                        m.initiators(),
                        m.luns().stream()
                                .filter(l -> newLuns.stream().anyMatch(n -> n.id() == l.lun()))
                                .toList()))
                .toList();
        return new TargetDefinition(
                name, alias, allowedInitiators, newLuns, chap, allowNetworks, alua, sharedReservations, maps);
    }

    /** This target with other LUN maps, everything else kept. */
    public TargetDefinition withLunMaps(List<LunMap> maps) {
        return new TargetDefinition(
                name, alias, allowedInitiators, luns, chap, allowNetworks, alua, sharedReservations, maps);
    }

    /** Who may log in: {@link #allowedInitiators} and {@link #allowNetworks}. */
    public AccessList access() {
        return new AccessList(allowedInitiators, allowNetworks);
    }

    /** Whether an initiator at this source address may log in: in one of {@link #allowNetworks}, or any if empty. */
    public boolean allowsAddress(InetAddress address) {
        return access().allowsAddress(address);
    }

    /** Whether an initiator may log in to this target ({@link AccessList#allows}). */
    public boolean allows(String initiatorName) {
        return access().allows(initiatorName);
    }

    /** The LUN with this id, or null. */
    public LunDefinition lun(int id) {
        for (LunDefinition lun : luns) {
            if (lun.id() == id) {
                return lun;
            }
        }
        return null;
    }

    /**
     * The unit serial number of a LUN: the configured one, or 16 hex digits derived from the
     * target name and LUN id, stable across restarts so initiators (multipath) recognise the unit.
     */
    public String serialOf(LunDefinition lun) {
        if (lun.serial() != null) {
            return lun.serial();
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] hash = sha.digest((name.toLowerCase(Locale.ROOT) + ":" + lun.id()).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
