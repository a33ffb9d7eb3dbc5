package io.numaiscsi.iser.rdma;

import com.kenai.jffi.MemoryIO;
import io.numaiscsi.iser.MemoryRegion;
import io.numaiscsi.iser.Verbs;
import java.nio.ByteBuffer;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/** One RDMA device context's protection domain: memory registration through the shim. */
public final class NativeVerbs implements Verbs, AutoCloseable {
    private final LibIserShim shim;
    private final Pointer context;
    private final Pointer pd;

    NativeVerbs(LibIserShim shim, Pointer context, Pointer pd) {
        this.shim = shim;
        this.context = context;
        this.pd = pd;
    }

    /** A protection domain on {@code context}; null when the device refuses. */
    static NativeVerbs open(LibIserShim shim, Pointer context) {
        Pointer pd = shim.ishim_alloc_pd(context);
        return pd == null ? null : new NativeVerbs(shim, context, pd);
    }

    @Override
    public MemoryRegion register(ByteBuffer directBuffer) {
        long address = MemoryIO.getInstance().getDirectBufferAddress(directBuffer);
        Pointer mr = shim.ishim_reg_mr(pd, address, directBuffer.capacity());
        if (mr == null) {
            return null;
        }
        return new MemoryRegion(directBuffer, address, shim.ishim_mr_lkey(mr), shim.ishim_mr_rkey(mr), mr.address());
    }

    @Override
    public void deregister(MemoryRegion region) {
        shim.ishim_dereg_mr(Pointer.wrap(Runtime.getRuntime(shim), region.handle()));
    }

    Pointer context() {
        return context;
    }

    Pointer pd() {
        return pd;
    }

    @Override
    public void close() {
        shim.ishim_dealloc_pd(pd);
    }
}
