package io.numaiscsi.scsi;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a logical unit's persistent reservations are at one moment (SPC-4 5.13): the registrations with their I_T
 * nexuses, the reservation's holder and type, PRgeneration, and whether APTPL is active. What a
 * {@link ReservationStore} keeps and gives back; immutable.
 *
 * @param aptpl      the last valid APTPL bit was one: the state outlives a restart
 * @param generation PRgeneration (unsigned 32 bits)
 * @param registrations in the order they were made (READ KEYS reports that order)
 * @param type       the reservation's type, 0 for none
 * @param holder     the nexus holding it (null without one; for an all-registrants type, the one that reserved)
 */
public record ReservationState(
        boolean aptpl, int generation, List<Registration> registrations, int type, ItNexus holder) {

    /** One registered I_T nexus and its reservation key (never 0). */
    public record Registration(ItNexus nexus, long key) {
        public Registration {
            Objects.requireNonNull(nexus, "nexus");
            if (key == 0) {
                throw new IllegalArgumentException("registration of " + nexus + " with key 0");
            }
        }
    }

    /** No registrations, no reservation, APTPL off. */
    public static final ReservationState EMPTY = new ReservationState(false, 0, List.of(), 0, null);

    /**
     * @throws IllegalArgumentException the parts do not make one state: a nexus registered twice, an unknown type, a
     *     reservation nobody holds, or a holder that is not registered (except for the all-registrants types)
     */
    public ReservationState {
        registrations = List.copyOf(registrations);
        Set<ItNexus> seen = new HashSet<>();
        for (Registration r : registrations) {
            if (!seen.add(r.nexus())) {
                throw new IllegalArgumentException(r.nexus() + " is registered twice");
            }
        }
        if (type == 0) {
            holder = null;
        } else if (ReservationType.of(type) == null) {
            throw new IllegalArgumentException("reservation type " + type + " is not an SPC-4 type");
        } else if (ReservationType.of(type).allRegistrants()) {
            if (registrations.isEmpty()) {
                throw new IllegalArgumentException(
                        "an all-registrants reservation (type " + type + ") without registrations");
            }
        } else if (holder == null || !seen.contains(holder)) {
            throw new IllegalArgumentException(
                    "reservation type " + type + " held by " + holder + ", which is not registered");
        }
    }
}
