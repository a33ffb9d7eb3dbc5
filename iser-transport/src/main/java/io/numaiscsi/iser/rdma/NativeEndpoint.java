package io.numaiscsi.iser.rdma;

import io.numaiscsi.iser.CompletionHandler;
import io.numaiscsi.iser.MemoryRegion;
import io.numaiscsi.iser.RdmaEndpoint;
import java.nio.charset.StandardCharsets;
import jnr.ffi.Pointer;

/**
 * One accepted RDMA CM id with its queue pair and completion queue. Posts go into the shim's batch and reach
 * the device at {@link #ring()}; when the batch fills it is posted early. Owned by the connection's thread.
 */
final class NativeEndpoint implements RdmaEndpoint {
    private static final int SEND = 1;
    private static final int WRITE = 2;
    private static final int READ = 3;
    private static final int ENOSPC = 28;

    private final LibIserShim shim;
    private final Pointer id;
    private final Pointer cq;
    private final Pointer batch;
    /** Native memory the shim fills with completions: no Java array is marshalled per poll. */
    private final Pointer completions;

    private final int pollBatch;
    private final String remote;
    private final String local;
    private boolean destroyed;

    NativeEndpoint(LibIserShim shim, Pointer id, Pointer cq, Pointer batch, int pollBatch) {
        this.shim = shim;
        this.id = id;
        this.cq = cq;
        this.batch = batch;
        this.completions = jnr.ffi.Memory.allocateDirect(jnr.ffi.Runtime.getRuntime(shim), 24 * pollBatch);
        this.pollBatch = pollBatch;
        this.remote = address(shim, id, true);
        this.local = address(shim, id, false);
    }

    private static String address(LibIserShim shim, Pointer id, boolean remote) {
        byte[] buf = new byte[64];
        int n = shim.ishim_id_address(id, remote ? 1 : 0, buf, buf.length);
        return new String(buf, 0, Math.max(0, Math.min(n, buf.length)), StandardCharsets.US_ASCII);
    }

    Pointer cq() {
        return cq;
    }

    Pointer id() {
        return id;
    }

    @Override
    public int postRecv(long wrId, MemoryRegion region, int offset, int length) {
        int rc = shim.ishim_batch_recv(batch, wrId, region.address() + offset, length, region.lkey());
        if (rc == ENOSPC) {
            rc = ring();
            if (rc == 0) {
                rc = shim.ishim_batch_recv(batch, wrId, region.address() + offset, length, region.lkey());
            }
        }
        return rc;
    }

    @Override
    public int postSend(long wrId, MemoryRegion region, int offset, int length, boolean signaled) {
        return send(wrId, SEND, region, offset, length, 0, 0, signaled);
    }

    @Override
    public int postRdmaWrite(
            long wrId, MemoryRegion region, int offset, int length, long remoteAddress, int rkey, boolean signaled) {
        return send(wrId, WRITE, region, offset, length, remoteAddress, rkey, signaled);
    }

    @Override
    public int postRdmaRead(long wrId, MemoryRegion region, int offset, int length, long remoteAddress, int rkey) {
        return send(wrId, READ, region, offset, length, remoteAddress, rkey, true);
    }

    private int send(
            long wrId,
            int opcode,
            MemoryRegion region,
            int offset,
            int length,
            long remoteAddress,
            int rkey,
            boolean signaled) {
        long address = region.address() + offset;
        int rc = shim.ishim_batch_send(
                batch, wrId, opcode, address, length, region.lkey(), remoteAddress, rkey, signaled ? 1 : 0);
        if (rc == ENOSPC) {
            rc = ring();
            if (rc == 0) {
                rc = shim.ishim_batch_send(
                        batch, wrId, opcode, address, length, region.lkey(), remoteAddress, rkey, signaled ? 1 : 0);
            }
        }
        return rc;
    }

    @Override
    public int ring() {
        return destroyed ? 0 : shim.ishim_batch_post(batch, id);
    }

    @Override
    public int poll(CompletionHandler handler, int max) {
        if (destroyed) {
            return 0;
        }
        int want = Math.min(max, pollBatch);
        int n = shim.ishim_poll_cq(cq, want, completions);
        for (int i = 0; i < n; i++) {
            long at = 24L * i;
            handler.onCompletion(
                    completions.getLong(at), (int) completions.getLong(at + 8), (int) completions.getLong(at + 16));
        }
        return Math.max(n, 0);
    }

    /** Asks for an event on the completion channel at the next completion. */
    int armNotify() {
        return destroyed ? 0 : shim.ishim_req_notify_cq(cq);
    }

    @Override
    public void disconnect() {
        if (!destroyed) {
            shim.ishim_disconnect(id);
        }
    }

    @Override
    public void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        shim.ishim_destroy(id, cq);
        shim.ishim_batch_free(batch);
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String localAddress() {
        return local;
    }
}
