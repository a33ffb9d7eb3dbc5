package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;

/**
 * SANITIZE (SBC-4 4.11, 5.30) of one logical unit: OVERWRITE and BLOCK ERASE of the whole medium, and EXIT FAILURE
 * MODE. There is no CRYPTOGRAPHIC ERASE: no store here encrypts, so there is no key whose change would make the data
 * unreadable, and calling a deallocation that would be dishonest (the scsi README says more).
 *
 * <p>The operation belongs to the unit's thread. While it runs, every command but INQUIRY, REPORT LUNS and REQUEST
 * SENSE ends NOT READY, SANITIZE IN PROGRESS with a progress indication. A failed operation leaves the unit in the
 * sanitize failure state: commands that touch the medium end MEDIUM ERROR, SANITIZE COMMAND FAILED until a sanitize
 * succeeds or, when the failed command had AUSE set, EXIT FAILURE MODE. Task management and nexus loss do not stop
 * the operation (SBC-4 4.11.4); aborting a SANITIZE with IMMED 0 only ends that command.
 *
 * <p>The work goes to the unit's {@link BlockDevice} one chunk at a time (a cache below sees every write and unmap,
 * so nothing stale stays cached), and every completion is queued to the unit's thread before the next chunk, so the
 * commands that arrive meanwhile are answered between chunks instead of waiting behind the whole medium.
 */
final class Sanitize implements IoCompletion, Runnable {
    static final int OVERWRITE = 0x01;
    static final int BLOCK_ERASE = 0x02;
    static final int CRYPTOGRAPHIC_ERASE = 0x03;
    static final int EXIT_FAILURE_MODE = 0x1F;
    /** OVERWRITE parameter list: flags, reserved, INITIALIZATION PATTERN LENGTH, then the pattern. */
    static final int OVERWRITE_HEADER = 4;

    private static final int CDB_RESERVED_BITS = 0x40;
    private static final int OVERWRITE_CHUNK_BYTES = 1 << 20;
    private static final long ERASE_CHUNK_BYTES = 256L << 20;

    private enum State {
        IDLE,
        RUNNING,
        FAILED
    }

    private final LogicalUnit lu;
    private State state = State.IDLE;
    /** AUSE of the operation that failed: EXIT FAILURE MODE may then leave the failure state. */
    private boolean exitAllowed;

    // the running operation
    private ScsiTask waiter;
    private boolean erase;
    private boolean ause;
    private ByteBuf chunk;
    private byte[] pattern;
    private int patternLength;
    private boolean invert;
    private int passes;
    private int pass;
    private long size;
    /** Bytes of this pass the device has completed. */
    private long cursor;
    /** Bytes of the request the device is working on. */
    private long issued;

    private boolean flushing;
    private IoStatus handedOver;

    Sanitize(LogicalUnit lu) {
        this.lu = lu;
    }

    /**
     * BLOCK ERASE needs a store that tells deallocated blocks from mapped ones: on a block device (every block reads as
     * mapped) an erase could not be told from a write of zeros, so it is not offered (WABEREQ 0, not listed).
     */
    static boolean offersBlockErase(LogicalUnit lu) {
        return lu.device.tracksAllocation();
    }

    /** CDB checks (on the transport's thread): reserved fields, service action, parameter list length. */
    static SenseReason decode(ScsiTask t, LogicalUnit lu, byte[] c) {
        if ((c[1] & CDB_RESERVED_BITS) != 0) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        for (int i = 2; i <= 6; i++) {
            if (c[i] != 0) {
                return SenseReason.INVALID_FIELD_IN_CDB;
            }
        }
        int length = Cdb.u16(c, 7);
        switch (c[1] & 0x1F) {
            case OVERWRITE -> { // at least one pattern byte, at most one logical block of it
                if (length <= OVERWRITE_HEADER || length > OVERWRITE_HEADER + lu.blockSize) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
            }
            case BLOCK_ERASE -> {
                if (!offersBlockErase(lu) || length != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
            }
            case EXIT_FAILURE_MODE -> {
                if (length != 0) {
                    return SenseReason.INVALID_FIELD_IN_CDB;
                }
            }
            default -> { // CRYPTOGRAPHIC ERASE among them: not supported
                return SenseReason.INVALID_FIELD_IN_CDB;
            }
        }
        t.kind = CommandKind.SANITIZE;
        t.dataOutLength = length;
        return null;
    }

    /**
     * Admission of a command of this unit (on its thread), after unit attentions and reservations: null when it may
     * run.
     */
    SenseReason admit(CommandKind kind) {
        if (state == State.IDLE) {
            return null;
        }
        if (state == State.RUNNING) {
            return kind == CommandKind.INQUIRY || kind == CommandKind.REPORT_LUNS || kind == CommandKind.REQUEST_SENSE
                    ? null
                    : SenseReason.SANITIZE_IN_PROGRESS;
        }
        return kind.accessesMedium() ? SenseReason.SANITIZE_COMMAND_FAILED : null;
    }

    boolean running() {
        return state == State.RUNNING;
    }

    /** PROGRESS INDICATION of the running operation: 65536ths done. */
    int progress() {
        if (state != State.RUNNING) {
            return 0;
        }
        double total = (double) size * passes;
        double done = (double) size * pass + cursor;
        return (int) Math.min(0xFFFF, done / total * 0x10000);
    }

    /** Executes a SANITIZE command (admission made sure no operation runs). */
    void start(ScsiTask t) {
        byte[] c = t.cdb;
        int action = c[1] & 0x1F;
        if (action == EXIT_FAILURE_MODE) {
            if (state == State.FAILED && !exitAllowed) {
                t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB); // only a sanitize that succeeds ends this failure
                return;
            }
            state = State.IDLE;
            t.completeGood();
            return;
        }
        erase = action == BLOCK_ERASE;
        if (!erase) {
            SenseReason r = overwriteParameters(t);
            if (r != null) {
                t.completeFailed(r);
                return;
            }
        } else {
            passes = 1;
        }
        ause = (c[1] & 0x20) != 0;
        size = lu.blockCount * lu.blockSize;
        pass = 0;
        cursor = 0;
        issued = 0;
        flushing = false;
        state = State.RUNNING;
        if (!erase) {
            int chunkBytes = (int) Math.min(size, OVERWRITE_CHUNK_BYTES);
            chunk = lu.alloc.directBuffer(chunkBytes, chunkBytes);
            fill(false);
        }
        if ((c[1] & 0x80) != 0) {
            t.completeGood(); // IMMED: GOOD once the parameters are checked; progress is reported from now on
        } else {
            waiter = t;
        }
        next();
    }

    /** Reads and checks the OVERWRITE parameter list (SBC-4 5.30.3.2). */
    private SenseReason overwriteParameters(ScsiTask t) {
        ByteBuf p = t.dataOut;
        int length = t.dataOutLength;
        if (p == null || p.readableBytes() < length) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        int at = p.readerIndex();
        int flags = p.getUnsignedByte(at);
        int count = flags & 0x1F;
        int test = (flags >>> 5) & 0x03;
        int patternBytes = p.getUnsignedShort(at + 2);
        if (count == 0 || test != 0 || patternBytes == 0 || patternBytes > lu.blockSize) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        if (patternBytes > length - OVERWRITE_HEADER) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        if (pattern == null || pattern.length < lu.blockSize) {
            pattern = new byte[lu.blockSize];
        }
        p.getBytes(at + OVERWRITE_HEADER, pattern, 0, patternBytes);
        patternLength = patternBytes;
        invert = (flags & 0x80) != 0;
        passes = count;
        return null;
    }

    /** Fills the chunk with whole blocks, the pattern repeated from the start of each block; inverted if asked. */
    private void fill(boolean inverted) {
        int bs = lu.blockSize;
        byte flip = (byte) (inverted ? 0xFF : 0);
        byte[] block = new byte[bs];
        for (int i = 0; i < bs; i++) {
            block[i] = (byte) (pattern[i % patternLength] ^ flip);
        }
        ByteBuf b = chunk;
        b.clear();
        for (int n = b.capacity() / bs; n > 0; n--) {
            b.writeBytes(block);
        }
    }

    private void next() {
        if (waiter != null && waiter.aborted()) {
            ScsiTask t = waiter; // task management ends the command, never the operation
            waiter = null;
            t.completeFailed(SenseReason.TASK_ABORTED);
        }
        if (cursor < size) {
            if (erase) {
                issued = Math.min(size - cursor, ERASE_CHUNK_BYTES);
                lu.device.unmap(cursor, issued, this);
            } else {
                int length = (int) Math.min(size - cursor, chunk.capacity());
                issued = length;
                chunk.setIndex(0, length);
                lu.device.write(cursor, chunk, false, this);
            }
            return;
        }
        if (pass + 1 < passes) {
            pass++;
            cursor = 0;
            fill(invert && (pass & 1) == 1); // INVERT: the pattern alternates between passes, the first pass as given
            next();
            return;
        }
        if (!flushing) {
            flushing = true; // the medium, not a cache in front of it, must hold the result
            lu.device.flush(this);
            return;
        }
        finish(true);
    }

    private void finish(boolean succeeded) {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
        if (succeeded) {
            state = State.IDLE;
        } else {
            state = State.FAILED;
            exitAllowed = ause;
        }
        ScsiTask t = waiter;
        waiter = null;
        if (t == null) {
            return;
        }
        if (succeeded) {
            t.completeGood();
        } else {
            t.completeFailed(SenseReason.SANITIZE_COMMAND_FAILED);
        }
    }

    /** Any thread: the next step always goes through the unit's queue, so commands waiting there run in between. */
    @Override
    public void ioComplete(IoStatus status) {
        handedOver = status;
        lu.thread().execute(this);
    }

    @Override
    public void run() {
        IoStatus s = handedOver;
        handedOver = null;
        if (s != IoStatus.OK) {
            finish(false);
            return;
        }
        cursor += issued; // the final flush leaves it at size
        issued = 0;
        next();
    }
}
