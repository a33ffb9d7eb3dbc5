package io.numaiscsi.proto;

/**
 * Base of the flyweights for PDUs the target sends: a settable ITT and F bit, and the StatSN, ExpCmdSN and
 * MaxCmdSN every target PDU carries at bytes 24, 28 and 32 (RFC 7143 11.2).
 *
 * @param <T> the concrete header
 */
public abstract class TargetBhsFlyweight<T extends TargetBhsFlyweight<T>> extends BhsFlyweight<T> {
    TargetBhsFlyweight() {}

    public final T finalBit(boolean on) {
        return flag(Bhs.FINAL_BIT, on);
    }

    public final T initiatorTaskTag(int itt) {
        return setInt(Bhs.INITIATOR_TASK_TAG_OFFSET, itt);
    }

    public final int statSN() {
        return buf.getInt(Bhs.STAT_SN_OFFSET);
    }

    public final T statSN(int statSN) {
        return setInt(Bhs.STAT_SN_OFFSET, statSN);
    }

    public final int expCmdSN() {
        return buf.getInt(Bhs.EXP_CMD_SN_OFFSET);
    }

    public final T expCmdSN(int expCmdSN) {
        return setInt(Bhs.EXP_CMD_SN_OFFSET, expCmdSN);
    }

    public final int maxCmdSN() {
        return buf.getInt(Bhs.MAX_CMD_SN_OFFSET);
    }

    public final T maxCmdSN(int maxCmdSN) {
        return setInt(Bhs.MAX_CMD_SN_OFFSET, maxCmdSN);
    }
}
