package io.numaiscsi.scsi;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Where one logical unit keeps the mode parameters MODE SELECT saved (SP=1), so they are the unit's values again after
 * a restart. The daemon keeps them in a file under its data directory.
 */
public interface ModePageStore {

    /** Whether saving is possible: MODE SELECT with SP=1 and MODE SENSE of saved values are refused without. */
    boolean persists();

    /**
     * The saved parameters, or null when none were saved. Called once, before the unit serves.
     *
     * @throws IOException they are there but cannot be read or make no sense (the message says where)
     */
    SavedModePages load() throws IOException;

    /**
     * Replaces the saved parameters. Returns at once; {@code done} runs (on any thread) with null once they are durable,
     * or with the error.
     */
    void save(SavedModePages pages, Consumer<IOException> done);

    /** Saves nothing: MODE SELECT with SP=1 gets SAVING PARAMETERS NOT SUPPORTED. */
    ModePageStore NONE = new ModePageStore() {
        @Override
        public boolean persists() {
            return false;
        }

        @Override
        public SavedModePages load() {
            return null;
        }

        @Override
        public void save(SavedModePages pages, Consumer<IOException> done) {
            done.accept(new IOException("no mode page store"));
        }

        @Override
        public String toString() {
            return "no mode page store";
        }
    };
}
