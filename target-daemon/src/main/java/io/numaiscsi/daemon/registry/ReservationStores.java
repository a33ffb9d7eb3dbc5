package io.numaiscsi.daemon.registry;

import io.numaiscsi.scsi.ReservationStore;
import java.io.IOException;

/**
 * Where each LUN's persistent reservations are kept while an initiator has APTPL active: one file per LUN under the
 * data directory ({@code io.numaiscsi.daemon.reservations.ReservationFiles}), or a store the cluster shares.
 */
public interface ReservationStores {

    /** The store of one LUN, as the LUN is added; its saved state is read through it. */
    ReservationStore open(String target, int lun) throws IOException;

    /**
     * The LUN was removed: its saved state goes (a LUN added later under the same number starts without it) and its
     * store takes no more changes. Returns once the state is gone.
     */
    void discard(String target, int lun) throws IOException;

    /** Nothing is kept: APTPL is refused. */
    ReservationStores NONE = new ReservationStores() {
        @Override
        public ReservationStore open(String target, int lun) {
            return ReservationStore.NONE;
        }

        @Override
        public void discard(String target, int lun) {}
    };
}
