package io.numaiscsi.blockdev.backstore;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.MappingResources;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * TEST/DEBUG ONLY: a {@link BlockDevice} decorator that makes a healthy store misbehave, for the
 * fault tests (a slow disk under task-management storms, media errors, a full disk). Never in a
 * production configuration: it allocates per delayed I/O and adds a timer thread.
 *
 * <ul>
 *   <li>latency: every operation is handed to the real store only after this delay, from a
 *       timer thread (the caller's thread is never blocked, as with a slow disk behind
 *       asynchronous I/O);</li>
 *   <li>medium error every N: the Nth, 2Nth, ... read or write completes {@link IoStatus#MEDIUM_ERROR}
 *       without touching the medium;</li>
 *   <li>no space after B bytes: once B bytes have been written, writes complete
 *       {@link IoStatus#NO_SPACE} (as ENOSPC would); {@link #noSpace(boolean)} switches it on demand.</li>
 * </ul>
 */
public final class FaultInjectingBlockDevice implements BlockDevice {
    /** {@code noSpaceAfterBytes} value that never runs out of space. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private static final int READ = 1;
    private static final int WRITE = 2;
    private static final int FLUSH = 3;
    private static final int UNMAP = 4;

    private final BlockDevice delegate;
    private final long latencyNanos;
    private final int mediumErrorEvery;
    private final long noSpaceAfterBytes;
    private final AtomicLong transfers = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private volatile boolean forcedNoSpace;

    /**
     * @param latency           delay before each operation reaches {@code delegate}; zero for none
     * @param mediumErrorEvery  every Nth read or write fails with a medium error; 0 for never
     * @param noSpaceAfterBytes writes fail with NO_SPACE once this many bytes were written; {@link #UNLIMITED} for never
     */
    public FaultInjectingBlockDevice(
            BlockDevice delegate, Duration latency, int mediumErrorEvery, long noSpaceAfterBytes) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("negative latency " + latency);
        }
        if (mediumErrorEvery < 0 || noSpaceAfterBytes < 0) {
            throw new IllegalArgumentException(
                    "mediumErrorEvery " + mediumErrorEvery + ", noSpaceAfterBytes " + noSpaceAfterBytes);
        }
        this.latencyNanos = latency.toNanos();
        this.mediumErrorEvery = mediumErrorEvery;
        this.noSpaceAfterBytes = noSpaceAfterBytes;
    }

    /** true: every later write fails with NO_SPACE until switched off again. */
    public void noSpace(boolean on) {
        forcedNoSpace = on;
    }

    /** Bytes written through this device so far (successful or not). */
    public long bytesWritten() {
        return written.get();
    }

    @Override
    public int blockSize() {
        return delegate.blockSize();
    }

    @Override
    public long blockCount() {
        return delegate.blockCount();
    }

    @Override
    public int physicalBlockSize() {
        return delegate.physicalBlockSize();
    }

    @Override
    public void resize(long newBlockCount) throws IOException {
        delegate.resize(newBlockCount);
    }

    @Override
    public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        if (mediumError()) {
            done.ioComplete(IoStatus.MEDIUM_ERROR);
            return;
        }
        submit(READ, offset, length, dst, false, done);
    }

    @Override
    public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
        int length = src.readableBytes();
        long before = written.getAndAdd(length);
        if (forcedNoSpace || before + length > noSpaceAfterBytes) {
            done.ioComplete(IoStatus.NO_SPACE);
            return;
        }
        if (mediumError()) {
            done.ioComplete(IoStatus.MEDIUM_ERROR);
            return;
        }
        submit(WRITE, offset, length, src, fua, done);
    }

    @Override
    public void flush(IoCompletion done) {
        submit(FLUSH, 0, 0, null, false, done);
    }

    @Override
    public void unmap(long offset, long length, IoCompletion done) {
        submit(UNMAP, offset, length, null, false, done);
    }

    @Override
    public MappingResources mappingResources() {
        return delegate.mappingResources();
    }

    @Override
    public boolean tracksAllocation() {
        return delegate.tracksAllocation();
    }

    @Override
    public boolean isMapped(long offset) {
        return delegate.isMapped(offset);
    }

    @Override
    public long nextMappingChange(long offset) {
        return delegate.nextMappingChange(offset);
    }

    @Override
    public void close() {
        delegate.close();
    }

    private boolean mediumError() {
        return mediumErrorEvery > 0 && transfers.incrementAndGet() % mediumErrorEvery == 0;
    }

    private void submit(int op, long offset, long length, ByteBuf buf, boolean fua, IoCompletion done) {
        if (latencyNanos == 0) {
            forward(op, offset, length, buf, fua, done);
            return;
        }
        Delayed d = new Delayed(this, op, offset, length, buf, fua, done);
        try {
            Timer.INSTANCE.schedule(d, latencyNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            done.ioComplete(IoStatus.UNAVAILABLE);
        }
    }

    void forward(int op, long offset, long length, ByteBuf buf, boolean fua, IoCompletion done) {
        switch (op) {
            case READ -> delegate.read(offset, (int) length, buf, done);
            case WRITE -> delegate.write(offset, buf, fua, done);
            case FLUSH -> delegate.flush(done);
            case UNMAP -> delegate.unmap(offset, length, done);
            default -> throw new IllegalStateException("op " + op);
        }
    }

    /** One operation waiting out its latency. */
    private static final class Delayed implements Runnable {
        private final FaultInjectingBlockDevice device;
        private final int op;
        private final long offset;
        private final long length;
        private final ByteBuf buf;
        private final boolean fua;
        private final IoCompletion done;

        Delayed(
                FaultInjectingBlockDevice device,
                int op,
                long offset,
                long length,
                ByteBuf buf,
                boolean fua,
                IoCompletion done) {
            this.device = device;
            this.op = op;
            this.offset = offset;
            this.length = length;
            this.buf = buf;
            this.fua = fua;
            this.done = done;
        }

        @Override
        public void run() {
            device.forward(op, offset, length, buf, fua, done);
        }
    }

    /** The one timer thread of all fault-injecting devices, created on first use. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor INSTANCE = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "fault-injection-timer");
                t.setDaemon(true);
                return t;
            });
            e.setRemoveOnCancelPolicy(true);
            return e;
        }
    }
}
