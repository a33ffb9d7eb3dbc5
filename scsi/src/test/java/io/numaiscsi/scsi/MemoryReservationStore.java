package io.numaiscsi.scsi;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A {@link ReservationStore} that persists into memory; it can hold completions back or fail the next save. */
final class MemoryReservationStore implements ReservationStore {
    /** What a restarted unit would load: the last state saved with APTPL active, null after APTPL went off. */
    ReservationState saved;

    final List<ReservationState> saves = new ArrayList<>();
    /** Completions held back while {@link #defer} is set, oldest first. */
    final ArrayDeque<Runnable> held = new ArrayDeque<>();

    boolean defer;
    IOException failNext;

    MemoryReservationStore() {}

    MemoryReservationStore(ReservationState saved) {
        this.saved = saved;
    }

    @Override
    public boolean persists() {
        return true;
    }

    @Override
    public ReservationState load() {
        return saved;
    }

    @Override
    public void save(ReservationState state, Consumer<IOException> done) {
        saves.add(state);
        IOException failure = failNext;
        failNext = null;
        if (failure == null) {
            saved = state.aptpl() ? state : null;
        }
        if (defer) {
            held.add(() -> done.accept(failure));
        } else {
            done.accept(failure);
        }
    }

    /** Completes the oldest held-back save. */
    void completeOne() {
        held.remove().run();
    }
}
