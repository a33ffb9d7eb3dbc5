package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.util.List;

/**
 * One EXTENDED COPY (LID1) being carried out: its segments are copied in chunks of at most
 * {@link CopyManagerLimits#CHUNK_BYTES}, each read from the source unit's device and then written to the destination
 * unit's device through their normal asynchronous I/O (cache, write-back), one chunk in flight.
 *
 * <p>Threads: the copy's state belongs to the thread of the unit the command was sent to (its home). Each read is
 * issued on the source unit's thread and each write on the destination unit's thread, where their reservations are
 * checked as for a READ and a WRITE of the issuing nexus; every completion comes back home before the copy goes on.
 * One hop at a time, so no two threads touch the state at once. A chain of completions that happen inline (a RAM
 * store, all units on one thread) is unrolled by {@link #drive} instead of growing the stack per chunk.
 */
final class ExtendedCopy implements IoCompletion, Runnable {
    private static final int ISSUE_READ = 1;
    private static final int ISSUE_WRITE = 2;
    private static final int COMPLETED = 3;

    private final ScsiTask task;
    private final LogicalUnit home;
    private final List<CopySegment> segments;
    private final CopyResults.Progress record;
    private final ByteBuf buffer;
    private int segment;
    /** Bytes of the current segment copied so far. */
    private long done;

    private int chunk;
    private long sourceAt;
    private long destinationAt;
    /** The chunk in flight is being written (else read). */
    private boolean writing;
    /** What {@link #run} does next; set before every hop. */
    private int stage;

    private IoStatus status;
    /** Set on a source or destination thread that refused the I/O (reservation conflict). */
    private SenseReason refused;

    private boolean driving;
    private boolean again;

    private ExtendedCopy(ScsiTask task, List<CopySegment> segments, CopyResults.Progress record, ByteBuf buffer) {
        this.task = task;
        this.home = task.unit;
        this.segments = segments;
        this.record = record;
        this.buffer = buffer;
    }

    /** EXTENDED COPY on the addressed unit's thread: parse, validate, register, then copy. */
    static void start(ScsiTask t, ScsiTarget target) {
        if (t.dataOutLength == 0) {
            t.completeGood(); // a zero PARAMETER LIST LENGTH asks for nothing (SPC-4 6.4.1)
            return;
        }
        ByteBuf p = t.dataOut;
        if (p == null) {
            t.completeFailed(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        int available = Math.min(p.readableBytes(), t.dataOutLength);
        CopyParameterList.Outcome parsed = CopyParameterList.parse(p, available, target.units());
        if (parsed.error() != null) {
            t.completeFailedWithKeySpecific(parsed.error(), parsed.keySpecific());
            return;
        }
        CopyPlan plan = parsed.plan();
        LogicalUnit lu = t.unit;
        SenseReason refusal = lu.copyResults.refusal(t.nexus, plan);
        if (refusal != null) {
            t.completeFailed(refusal);
            return;
        }
        CopyResults.Progress record = lu.copyResults.begin(t.nexus, plan);
        long largest = 0;
        for (CopySegment s : plan.segments()) {
            largest = Math.max(largest, s.length());
        }
        if (largest == 0) {
            record.segmentsProcessed = plan.segments().size();
            lu.copyResults.end(record, true);
            t.completeGood();
            return;
        }
        int size = (int) Math.min(CopyManagerLimits.CHUNK_BYTES, largest);
        t.scratch = lu.alloc.directBuffer(size, size); // released when the task completes
        new ExtendedCopy(t, plan.segments(), record, t.scratch).drive();
    }

    /** On the home thread: runs chunks until one goes asynchronous or the copy ends. */
    private void drive() {
        if (driving) {
            again = true; // a chunk completed inline further up this stack: let that loop go on
            return;
        }
        driving = true;
        do {
            again = false;
            nextChunk();
        } while (again);
        driving = false;
    }

    private void nextChunk() {
        if (task.aborted()) {
            finish(SenseReason.TASK_ABORTED);
            return;
        }
        while (segment < segments.size() && done == segments.get(segment).length()) {
            segment++;
            done = 0;
            record.segmentsProcessed++;
        }
        if (segment == segments.size()) {
            finish(null);
            return;
        }
        CopySegment s = segments.get(segment);
        chunk = (int) Math.min(buffer.capacity(), s.length() - done);
        long from = s.backwards() ? s.length() - done - chunk : done;
        sourceAt = s.sourceOffset() + from;
        destinationAt = s.destinationOffset() + from;
        writing = false;
        hop(ISSUE_READ, s.source());
    }

    private void hop(int next, LogicalUnit where) {
        stage = next;
        where.thread().runHereOrQueue(this);
    }

    @Override
    public void run() {
        switch (stage) {
            case ISSUE_READ -> issue(segments.get(segment).source());
            case ISSUE_WRITE -> issue(segments.get(segment).destination());
            case COMPLETED -> completed();
            default -> throw new IllegalStateException("EXTENDED COPY step " + stage);
        }
    }

    /** On {@code lu}'s thread. Touches no field after handing the buffer to the device: its completion may run anywhere. */
    private void issue(LogicalUnit lu) {
        if (lu.retired()) {
            ioComplete(IoStatus.UNAVAILABLE);
            return;
        }
        if (lu.reservations.conflicts(task.nexus, writing ? CommandKind.WRITE : CommandKind.READ)) {
            refused = SenseReason.RESERVATION_CONFLICT;
            ioComplete(IoStatus.OK);
            return;
        }
        if (writing) {
            buffer.setIndex(0, chunk);
            lu.device.write(destinationAt, buffer, !lu.modePages.writeCacheEnabled(), this);
        } else {
            buffer.clear();
            lu.device.read(sourceAt, chunk, buffer, this);
        }
    }

    @Override
    public void ioComplete(IoStatus ioStatus) {
        status = ioStatus;
        stage = COMPLETED;
        home.thread().runHereOrQueue(this);
    }

    private void completed() {
        if (refused != null) {
            finish(refused);
            return;
        }
        if (status != IoStatus.OK) {
            finish(failure(status));
            return;
        }
        if (!writing) {
            writing = true;
            hop(ISSUE_WRITE, segments.get(segment).destination());
            return;
        }
        done += chunk;
        record.bytesCopied += chunk;
        drive();
    }

    private static SenseReason failure(IoStatus s) {
        return switch (s) {
            case NO_SPACE -> SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT;
            case UNAVAILABLE -> SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE;
            default -> SenseReason.THIRD_PARTY_DEVICE_FAILURE;
        };
    }

    private void finish(SenseReason failure) {
        home.copyResults.end(record, failure == null);
        if (failure == null) {
            task.completeGood();
        } else if (failure.senseKey() == 0xA) {
            // COPY ABORTED: the segment pointer names the descriptor of the segment that failed
            int at = segments.get(Math.min(segment, segments.size() - 1)).descriptorOffset();
            task.completeFailedWithKeySpecific(failure, SenseData.parameterFieldPointer(at, -1));
        } else {
            task.completeFailed(failure);
        }
    }
}
