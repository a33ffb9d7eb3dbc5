package io.numaiscsi.scsi;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Where one logical unit's persistent reservations are kept while APTPL is active (SPC-4 5.13.4.2: the registrations
 * and the reservation survive a loss of power). The daemon keeps them in a file under its data directory; a store
 * shared by a cluster can stand in for that without the unit noticing.
 *
 * <p>The unit hands over its whole state after every PERSISTENT RESERVE OUT that succeeds while APTPL is active, and
 * once with {@code aptpl} false when an initiator turns it off (the store then forgets the unit). The command's status
 * is sent only after {@code done} reports the state durable.
 */
public interface ReservationStore {

    /** Whether this store survives a restart: REPORT CAPABILITIES' PTPL_C, and whether APTPL=1 is accepted. */
    boolean persists();

    /**
     * The state saved for this unit, or null when there is none. Called once, before the unit serves.
     *
     * @throws IOException the saved state is there but cannot be read or makes no sense (the message says where)
     */
    ReservationState load() throws IOException;

    /**
     * Replaces the saved state with {@code state}, or removes it when {@code state.aptpl()} is false. Returns at once;
     * {@code done} runs (on any thread) with null once the change is durable, or with the error. Changes handed over
     * one after another become durable in that order.
     */
    void save(ReservationState state, Consumer<IOException> done);

    /** Keeps nothing: APTPL=1 is refused (PTPL_C=0) and nothing survives a restart. */
    ReservationStore NONE = new ReservationStore() {
        @Override
        public boolean persists() {
            return false;
        }

        @Override
        public ReservationState load() {
            return null;
        }

        @Override
        public void save(ReservationState state, Consumer<IOException> done) {
            done.accept(null);
        }

        @Override
        public String toString() {
            return "no reservation store";
        }
    };
}
