package io.numaiscsi.iser;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One side of a fake reliable connection. Work requests wait in a batch until {@link #ring()}, then execute in
 * order: Sends land in the peer's oldest posted receive (none: receiver-not-ready, the connection breaks),
 * RDMA Writes and Reads copy between registered buffers (a bad key or range: remote access error). Unsignaled
 * requests make no completion unless they fail or are flushed; after an error or a disconnect everything
 * outstanding and everything posted later completes with WR_FLUSH_ERR, as on a real queue pair.
 */
public final class FakeEndpoint implements RdmaEndpoint {
    private static final int RECV = 0;
    private static final int SEND = 1;
    private static final int WRITE = 2;
    private static final int READ = 3;

    private final FakeFabric fabric;
    private final String address;
    FakeEndpoint peer;
    private final List<Wr> batch = new ArrayList<>();
    private final ArrayDeque<Wr> receives = new ArrayDeque<>();
    private final ArrayDeque<long[]> cq = new ArrayDeque<>();
    private final MemoryRegion[] found = new MemoryRegion[1];
    boolean error;
    boolean destroyed;
    int rings;
    int signaledPosted;
    int sqPosted;
    /** Fail the n-th (1-based) RDMA Read / Write / Send from now with this status; 0: never. */
    int failReadAt;

    int failWriteAt;
    int failStatus = WorkCompletion.REM_ACCESS_ERR;
    int readsSeen;
    int writesSeen;
    /** A device that never reports flushes: only the CM's TIMEWAIT_EXIT can end a torn connection. */
    boolean loseFlushes;
    /** Hold RDMA Reads instead of executing them (a transfer caught mid-flight). */
    boolean holdReads;

    final List<Wr> heldReads = new ArrayList<>();

    FakeEndpoint(FakeFabric fabric, String address) {
        this.fabric = fabric;
        this.address = address;
    }

    static final class Wr {
        int op;
        long wrId;
        MemoryRegion region;
        int offset;
        int length;
        long remote;
        int rkey;
        boolean signaled;
    }

    private int post(
            int op, long wrId, MemoryRegion region, int offset, int length, long remote, int rkey, boolean signaled) {
        if (destroyed) {
            return 22;
        }
        Wr w = new Wr();
        w.op = op;
        w.wrId = wrId;
        w.region = region;
        w.offset = offset;
        w.length = length;
        w.remote = remote;
        w.rkey = rkey;
        w.signaled = signaled;
        batch.add(w);
        if (op != RECV) {
            sqPosted++;
            if (signaled) {
                signaledPosted++;
            }
        }
        return 0;
    }

    @Override
    public int postRecv(long wrId, MemoryRegion region, int offset, int length) {
        return post(RECV, wrId, region, offset, length, 0, 0, true);
    }

    @Override
    public int postSend(long wrId, MemoryRegion region, int offset, int length, boolean signaled) {
        return post(SEND, wrId, region, offset, length, 0, 0, signaled);
    }

    @Override
    public int postRdmaWrite(
            long wrId, MemoryRegion region, int offset, int length, long remoteAddress, int rkey, boolean signaled) {
        return post(WRITE, wrId, region, offset, length, remoteAddress, rkey, signaled);
    }

    @Override
    public int postRdmaRead(long wrId, MemoryRegion region, int offset, int length, long remoteAddress, int rkey) {
        return post(READ, wrId, region, offset, length, remoteAddress, rkey, true);
    }

    @Override
    public int ring() {
        if (destroyed) {
            return 22;
        }
        rings++;
        List<Wr> now = new ArrayList<>(batch);
        batch.clear();
        for (Wr w : now) {
            execute(w);
        }
        return 0;
    }

    private void execute(Wr w) {
        if (error) {
            complete(w.wrId, WorkCompletion.WR_FLUSH_ERR, 0);
            return;
        }
        switch (w.op) {
            case RECV -> receives.add(w);
            case SEND -> {
                Wr r = peer.error ? null : peer.receives.poll();
                if (r == null) {
                    fabric.receiverNotReady++;
                    complete(w.wrId, WorkCompletion.RNR_RETRY_EXC_ERR, 0);
                    breakConnection();
                    return;
                }
                if (w.length > r.length) {
                    peer.complete(r.wrId, WorkCompletion.LOC_LEN_ERR, 0);
                    complete(w.wrId, WorkCompletion.REM_ACCESS_ERR, 0);
                    breakConnection();
                    return;
                }
                copy(w.region, w.offset, r.region, r.offset, w.length);
                peer.complete(r.wrId, WorkCompletion.SUCCESS, w.length);
                if (w.signaled) {
                    complete(w.wrId, WorkCompletion.SUCCESS, 0);
                }
            }
            case WRITE -> {
                writesSeen++;
                int at = fabric.resolve(w.rkey, w.remote, w.length, found);
                if (at < 0 || writesSeen == failWriteAt) {
                    complete(w.wrId, at < 0 ? WorkCompletion.REM_ACCESS_ERR : failStatus, 0);
                    breakConnection();
                    return;
                }
                copy(w.region, w.offset, found[0], at, w.length);
                if (w.signaled) {
                    complete(w.wrId, WorkCompletion.SUCCESS, 0);
                }
            }
            case READ -> {
                if (holdReads) {
                    heldReads.add(w);
                    return;
                }
                executeRead(w);
            }
            default -> throw new IllegalStateException();
        }
    }

    private void executeRead(Wr w) {
        readsSeen++;
        int at = fabric.resolve(w.rkey, w.remote, w.length, found);
        if (at < 0 || readsSeen == failReadAt) {
            complete(w.wrId, at < 0 ? WorkCompletion.REM_ACCESS_ERR : failStatus, 0);
            breakConnection();
            return;
        }
        copy(found[0], at, w.region, w.offset, w.length);
        complete(w.wrId, WorkCompletion.SUCCESS, w.length);
    }

    /** Lets held RDMA Reads run (in order). */
    void releaseReads() {
        holdReads = false;
        List<Wr> held = new ArrayList<>(heldReads);
        heldReads.clear();
        for (Wr w : held) {
            if (error) {
                complete(w.wrId, WorkCompletion.WR_FLUSH_ERR, 0);
            } else {
                executeRead(w);
            }
        }
    }

    private static void copy(MemoryRegion from, int fromOffset, MemoryRegion to, int toOffset, int length) {
        ByteBuffer src = from.buffer().duplicate();
        src.clear().position(fromOffset).limit(fromOffset + length);
        ByteBuffer dst = to.buffer().duplicate();
        dst.clear().position(toOffset);
        dst.put(src);
    }

    void complete(long wrId, int status, int bytes) {
        if (loseFlushes && status == WorkCompletion.WR_FLUSH_ERR) {
            return;
        }
        cq.add(new long[] {wrId, status, bytes});
    }

    /** Both sides go to the error state: held and posted receives (and held reads) are flushed. */
    private void breakConnection() {
        enterError();
        peer.enterError();
    }

    private void enterError() {
        if (error) {
            return;
        }
        error = true;
        Wr r;
        while ((r = receives.poll()) != null) {
            complete(r.wrId, WorkCompletion.WR_FLUSH_ERR, 0);
        }
        for (Wr w : heldReads) {
            complete(w.wrId, WorkCompletion.WR_FLUSH_ERR, 0);
        }
        heldReads.clear();
    }

    @Override
    public int poll(CompletionHandler handler, int max) {
        int n = 0;
        long[] c;
        while (n < max && (c = cq.poll()) != null) {
            handler.onCompletion(c[0], (int) c[1], (int) c[2]);
            n++;
        }
        return n;
    }

    int pendingCompletions() {
        return cq.size();
    }

    int postedReceives() {
        return receives.size();
    }

    /** Whether the queue pair was destroyed. */
    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public void disconnect() {
        breakConnection();
    }

    @Override
    public void destroy() {
        destroyed = true;
    }

    @Override
    public String remoteAddress() {
        return peer.address;
    }

    @Override
    public String localAddress() {
        return address;
    }
}
