package io.numaiscsi.rbd;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import jnr.ffi.Pointer;

/**
 * One pooled {@link RbdBlockDevice} request: its slot number is the aio completion's callback argument, so the
 * callback finds it without a map, and nothing is allocated per I/O on the Java side once the pool is warm.
 */
final class RbdRequest {
    static final int READ = 1;
    static final int WRITE = 2;
    static final int FLUSH = 3;
    static final int DISCARD = 4;
    static final int WRITE_ZEROES = 5;

    final int slot;
    /** 8 bytes of native memory for rbd_aio_create_completion's out parameter, kept to allocate nothing per call. */
    final Pointer completionOut;
    /** The client and image it went through (a fenced gateway replaces them). */
    ImageHandle handle;
    /** {@code handle}'s image. */
    long image;
    /** The completion of the request in flight. */
    long completion;

    int op;
    long offset;
    long length;
    /** A read's destination or a write's source, as the caller gave it. */
    ByteBuf buf;
    /** A read's writer index or a write's reader index when the request started. */
    int index;
    /** Direct memory librbd reads into or writes from when {@link #buf} has no single native address; else null. */
    ByteBuf bounce;

    IoCompletion done;

    RbdRequest(int slot, Pointer completionOut) {
        this.slot = slot;
        this.completionOut = completionOut;
    }

    void clear() {
        buf = null;
        bounce = null;
        done = null;
        handle = null;
    }
}
