package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.SenseReason.UNRECOVERED_READ_ERROR;
import static io.numaiscsi.scsi.SenseReason.WRITE_ERROR;

import io.numaiscsi.blockdev.IoStatus;

/**
 * Where a block command goes on once the device request it issued completes: each command sets its task's
 * {@link ScsiTask#continuation} before every request, and {@link SbcCommands#ioComplete} resumes it there. A failed
 * request ends the command with the medium error of what it asked for (a read's or a write's); a command that holds
 * the unit's {@link AtomicWriteLock} hands the lock on as it ends. The constants are singletons: nothing is allocated
 * per request.
 */
enum SbcContinuation {
    /** READ: the data is in the task's data-in buffer. */
    READ(UNRECOVERED_READ_ERROR) {
        @Override
        void resume(ScsiTask t) {
            t.completeGood();
        }
    },
    /** WRITE, WRITE AND VERIFY: the blocks are written. */
    WRITE(WRITE_ERROR) {
        @Override
        void resume(ScsiTask t) {
            t.completeGood();
        }
    },
    /** SYNCHRONIZE CACHE, or the flush that ends a command while the write cache is off (WCE=0). */
    FLUSH(WRITE_ERROR) {
        @Override
        void resume(ScsiTask t) {
            t.completeGood();
        }
    },
    /** WRITE SAME unmapped or zeroed the range with the write cache off: a flush makes it durable before the status. */
    FLUSH_NEXT(WRITE_ERROR) {
        @Override
        void resume(ScsiTask t) {
            SbcCommands.synchronizeCache(t);
        }
    },
    /** UNMAP: one block descriptor's range is unmapped. */
    UNMAP_DESCRIPTOR(WRITE_ERROR) {
        @Override
        void resume(ScsiTask t) {
            Unmap.nextDescriptor(t);
        }
    },
    /** WRITE SAME: one chunk of the repeated block is written. */
    WRITE_SAME_CHUNK(WRITE_ERROR) {
        @Override
        void resume(ScsiTask t) {
            WriteSame.nextChunk(t);
        }
    },
    /** VERIFY with BYTCHK: the medium is read, to be compared with the Data-Out. */
    VERIFY_READ(UNRECOVERED_READ_ERROR) {
        @Override
        void resume(ScsiTask t) {
            Verify.compare(t);
        }
    },
    /** COMPARE AND WRITE: the medium is read, to be compared with the verify half of the Data-Out. */
    COMPARE_AND_WRITE_READ(UNRECOVERED_READ_ERROR, true) {
        @Override
        void resume(ScsiTask t) {
            AtomicCommands.compareThenWrite(t);
        }
    },
    /** COMPARE AND WRITE: the write half of the Data-Out is written. */
    COMPARE_AND_WRITE_WRITE(WRITE_ERROR, true) {
        @Override
        void resume(ScsiTask t) {
            AtomicCommands.finish(t, null, 0);
        }
    },
    /** ORWRITE: the medium is read, to be ORed with the Data-Out. */
    ORWRITE_READ(UNRECOVERED_READ_ERROR, true) {
        @Override
        void resume(ScsiTask t) {
            AtomicCommands.orThenWrite(t);
        }
    },
    /** ORWRITE: the result is written. */
    ORWRITE_WRITE(WRITE_ERROR, true) {
        @Override
        void resume(ScsiTask t) {
            AtomicCommands.finish(t, null, 0);
        }
    },
    /** WRITE ATOMIC (16): the Data-Out is written, as one device request. */
    WRITE_ATOMIC(WRITE_ERROR, true) {
        @Override
        void resume(ScsiTask t) {
            AtomicCommands.finish(t, null, 0);
        }
    },
    /** PRE-FETCH: the whole range is in the device's cache. */
    PREFETCH_WHOLE_RANGE(UNRECOVERED_READ_ERROR) {
        @Override
        void resume(ScsiTask t) {
            Prefetch.finish(t, true);
        }
    },
    /** PRE-FETCH: as much of the range as one PRE-FETCH may bring in is in the device's cache. */
    PREFETCH_PART_OF_RANGE(UNRECOVERED_READ_ERROR) {
        @Override
        void resume(ScsiTask t) {
            Prefetch.finish(t, false);
        }
    };

    /** The sense of a request that failed with {@link IoStatus#MEDIUM_ERROR}. */
    final SenseReason mediumError;
    /** The command holds the unit's {@link AtomicWriteLock} while this request is in flight. */
    final boolean holdsAtomicLock;

    SbcContinuation(SenseReason mediumError) {
        this(mediumError, false);
    }

    SbcContinuation(SenseReason mediumError, boolean holdsAtomicLock) {
        this.mediumError = mediumError;
        this.holdsAtomicLock = holdsAtomicLock;
    }

    /** The request succeeded: the command's next step (another request, or its status). */
    abstract void resume(ScsiTask t);
}
