package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SendQueueTest {
    private final List<int[]> retired = new ArrayList<>();
    private final SendQueue.Retirer retirer = (kind, resource, completedOne, status) ->
            retired.add(new int[] {kind, resource, completedOne ? 1 : 0, status});

    @Test
    void signalsEveryIntervalAndAlwaysForReadsAndLowResources() {
        SendQueue q = new SendQueue(64, 4);
        boolean[] got = new boolean[8];
        for (int i = 0; i < 8; i++) {
            got[i] = q.mustSignal(SendQueue.SEND, false);
            q.push(SendQueue.SEND, i, got[i]);
        }
        assertEquals("[false, false, false, true, false, false, false, true]", Arrays.toString(got));
        assertTrue(q.mustSignal(SendQueue.READ, false));
        assertTrue(q.mustSignal(SendQueue.WRITE, true));
        assertFalse(q.mustSignal(SendQueue.WRITE, false));
        assertEquals(2, q.signaledCount());
    }

    @Test
    void signalsTheRequestThatFillsTheQueue() {
        SendQueue q = new SendQueue(8, 8);
        for (int i = 0; i < 7; i++) {
            q.push(SendQueue.SEND, i, i == 4); // one signaled for low buffers: the unsignaled run restarts
        }
        assertFalse(q.full());
        assertTrue(q.mustSignal(SendQueue.SEND, false), "the request that takes the last slot must be signaled");
        q.push(SendQueue.SEND, 7, true);
        assertTrue(q.full());
    }

    @Test
    void aSignaledCompletionRetiresEveryEarlierRequestInOrder() {
        SendQueue q = new SendQueue(16, 8);
        q.push(SendQueue.WRITE, 10, false);
        q.push(SendQueue.WRITE, 11, false);
        long send = q.push(SendQueue.SEND, 12, true);
        long later = q.push(SendQueue.SEND, 13, false);
        assertEquals(3, q.retireThrough(send, WorkCompletion.SUCCESS, retirer));
        assertEquals(3, retired.size());
        assertEquals(10, retired.get(0)[1]);
        assertEquals(0, retired.get(0)[2]);
        assertEquals(12, retired.get(2)[1]);
        assertEquals(1, retired.get(2)[2]);
        assertEquals(1, q.inFlight());
        assertEquals(0, q.retireThrough(send, WorkCompletion.SUCCESS, retirer), "already retired: nothing");
        assertEquals(1, q.retireThrough(later, WorkCompletion.WR_FLUSH_ERR, retirer));
        assertEquals(WorkCompletion.WR_FLUSH_ERR, retired.get(3)[3]);
        assertEquals(0, q.inFlight());
    }

    @Test
    void sequenceNumbersWrapAroundTheRing() {
        SendQueue q = new SendQueue(4, 1);
        for (int i = 0; i < 1000; i++) {
            long id = q.push(SendQueue.SEND, i, true);
            assertEquals(SendQueue.SEND, SendQueue.kindOf(id));
            assertEquals(1, q.retireThrough(id, WorkCompletion.SUCCESS, retirer));
        }
        assertEquals(1000, retired.size());
        assertEquals(999, retired.get(999)[1]);
    }

    @Test
    void retireAllFlushesWhatIsLeft() {
        SendQueue q = new SendQueue(8, 8);
        q.push(SendQueue.READ, 1, true);
        q.push(SendQueue.SEND, 2, false);
        assertEquals(2, q.retireAll(retirer));
        assertEquals(WorkCompletion.WR_FLUSH_ERR, retired.get(0)[3]);
        assertEquals(SendQueue.READ, retired.get(0)[0]);
        assertEquals(0, q.inFlight());
    }

    @Test
    void knowsWhetherACompletionIsComingAndWhetherUnsignaledRequestsFollowTheLastSignaledOne() {
        SendQueue q = new SendQueue(16, 8);
        assertFalse(q.signaledInFlight());
        assertFalse(q.silentTail(), "empty");
        q.push(SendQueue.SEND, 1, false);
        assertFalse(q.signaledInFlight());
        assertTrue(q.silentTail(), "completed or not, the device will not say");
        long send = q.push(SendQueue.SEND, 2, true);
        assertTrue(q.signaledInFlight());
        assertFalse(q.silentTail());
        assertTrue(q.newestIsSignaledSend());
        q.push(SendQueue.WRITE, 3, false);
        assertTrue(q.silentTail(), "an unsignaled request behind the signaled one");
        assertFalse(q.newestIsSignaledSend());
        q.retireThrough(send, WorkCompletion.SUCCESS, retirer);
        assertFalse(q.signaledInFlight());
        long drain = q.push(SendQueue.DRAIN, 0, true);
        assertFalse(q.silentTail());
        assertFalse(q.newestIsSignaledSend(), "a drain marker is no response");
        assertEquals(2, q.retireThrough(drain, WorkCompletion.WR_FLUSH_ERR, retirer));
        assertEquals(0, q.inFlight());
        assertFalse(q.silentTail());
    }

    @Test
    void receiveIdsCarryTheirBufferIndex() {
        long id = SendQueue.recvWrId(77);
        assertEquals(SendQueue.RECV, SendQueue.kindOf(id));
        assertEquals(77, SendQueue.lowBits(id));
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new SendQueue(12, 2));
        assertThrows(IllegalArgumentException.class, () -> new SendQueue(16, 0));
    }
}
