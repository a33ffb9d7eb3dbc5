package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/** Test allocator: remembers every buffer it hands out and the largest capacity ever requested. */
final class TrackingAllocator extends AbstractByteBufAllocator {
    private final UnpooledByteBufAllocator delegate = new UnpooledByteBufAllocator(false);
    private final List<ByteBuf> buffers = new ArrayList<>();
    private int largestRequest;
    private int allocations;

    TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(delegate.heapBuffer(initialCapacity, maxCapacity), initialCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(delegate.directBuffer(initialCapacity, maxCapacity), initialCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    private ByteBuf track(ByteBuf buf, int initialCapacity) {
        buffers.add(buf);
        allocations++;
        largestRequest = Math.max(largestRequest, initialCapacity);
        return buf;
    }

    /** Forgets the largest request so far (buffers stay tracked). */
    void reset() {
        largestRequest = 0;
    }

    int largestRequest() {
        return largestRequest;
    }

    int allocations() {
        return allocations;
    }

    void assertAllReleased() {
        for (ByteBuf b : buffers) {
            assertEquals(0, b.refCnt(), "leaked buffer of capacity " + b.capacity());
        }
    }
}
