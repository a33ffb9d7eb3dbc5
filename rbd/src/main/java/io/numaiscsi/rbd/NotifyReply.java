package io.numaiscsi.rbd;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The reply of a RADOS notify ({@code rados_notify2}): le32 acks, each {le64 gid, le64 cookie, le32 length, payload};
 * then le32 timeouts, each {le64 gid, le64 cookie}. librados fills it in even when the notify timed out.
 */
final class NotifyReply {
    private NotifyReply() {}

    /** The global ids of the watchers that did not acknowledge; empty for a reply too short to hold the lists. */
    static List<Long> missedWatchers(byte[] reply) {
        ByteBuffer b = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> missed = new ArrayList<>();
        if (b.remaining() < 4) {
            return missed;
        }
        int acks = b.getInt();
        for (int i = 0; i < acks; i++) {
            if (b.remaining() < 20) {
                return List.of();
            }
            b.getLong();
            b.getLong();
            int length = b.getInt();
            if (length < 0 || length > b.remaining()) {
                return List.of();
            }
            b.position(b.position() + length);
        }
        if (b.remaining() < 4) {
            return missed;
        }
        int timeouts = b.getInt();
        for (int i = 0; i < timeouts && b.remaining() >= 16; i++) {
            missed.add(b.getLong());
            b.getLong();
        }
        return missed;
    }
}
