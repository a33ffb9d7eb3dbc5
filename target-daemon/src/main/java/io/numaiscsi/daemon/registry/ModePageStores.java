package io.numaiscsi.daemon.registry;

import io.numaiscsi.scsi.ModePageStore;
import java.io.IOException;

/**
 * Where each LUN keeps the mode parameters an initiator saved with MODE SELECT (SP=1): one file per LUN under the data
 * directory ({@code io.numaiscsi.daemon.state.ModePageFiles}).
 */
public interface ModePageStores {

    /** The store of one LUN, as the LUN is added; its saved parameters are read through it. */
    ModePageStore open(String target, int lun) throws IOException;

    /** The LUN was removed: its saved parameters go (a LUN added later under the same number starts with defaults). */
    void discard(String target, int lun) throws IOException;

    /** Nothing is saved: MODE SELECT with SP=1 is refused. */
    ModePageStores NONE = new ModePageStores() {
        @Override
        public ModePageStore open(String target, int lun) {
            return ModePageStore.NONE;
        }

        @Override
        public void discard(String target, int lun) {}
    };
}
