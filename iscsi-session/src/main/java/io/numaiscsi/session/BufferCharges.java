package io.numaiscsi.session;

/**
 * What one connection holds of the buffer budgets: its own budgets for write buffers
 * (limits.write-buffer-per-session) and for executing READs (limits.data-in-per-connection), and its part of the
 * daemon-wide one (limits.buffer-memory). Runs on the connection's thread.
 */
final class BufferCharges {
    /** What a connection holding no buffer may always take for one command, whatever the daemon-wide budget says. */
    static final int GUARANTEED_BUFFER = 1 << 20;

    private final long writeBudget;
    private final long readBudget;
    private final BufferBudget shared;
    private final Runnable onRelease;
    private long writeHeld;
    private long readHeld;
    private boolean awaitingRelease;

    /** {@code retry} runs on any thread when the daemon-wide budget has room again; it must only hand off. */
    BufferCharges(long writeBudget, long readBudget, BufferBudget shared, Runnable retry) {
        this.writeBudget = writeBudget;
        this.readBudget = readBudget;
        this.shared = shared;
        this.onRelease = () -> {
            awaitingRelease = false;
            retry.run();
        };
    }

    /**
     * Charges a command's buffer. A connection holding nothing of that kind may exceed its own budget with one
     * command; one holding nothing at all may always take {@link #GUARANTEED_BUFFER} bytes, so the
     * daemon-wide budget filled by others slows it but never stops it. A refusal by the daemon-wide budget asks
     * for {@code retry} when bytes come back.
     */
    boolean charge(long bytes, boolean write) {
        long held = write ? writeHeld : readHeld;
        long budget = write ? writeBudget : readBudget;
        if (held > 0 && held + bytes > budget) {
            return false;
        }
        if (!shared.tryCharge(bytes)) {
            if (writeHeld > 0 || readHeld > 0 || bytes > GUARANTEED_BUFFER) {
                if (!awaitingRelease) {
                    awaitingRelease = true;
                    shared.awaitRelease(onRelease, bytes);
                }
                return false;
            }
            shared.forceCharge(bytes);
        }
        add(bytes, write);
        return true;
    }

    /** Charges write buffers that cannot wait (data already on its way), past the budgets if need be. */
    void force(long bytes) {
        shared.forceCharge(bytes);
        writeHeld += bytes;
    }

    void release(long writeBytes, long readBytes) {
        writeHeld -= writeBytes;
        readHeld -= readBytes;
        shared.release(writeBytes + readBytes);
    }

    long writeHeld() {
        return writeHeld;
    }

    long readHeld() {
        return readHeld;
    }

    private void add(long bytes, boolean write) {
        if (write) {
            writeHeld += bytes;
        } else {
            readHeld += bytes;
        }
    }
}
