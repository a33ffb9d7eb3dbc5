package io.numaiscsi.proto;

/**
 * Base of the flyweights for the numbered PDUs an initiator sends: CmdSN and ExpStatSN at bytes 24 and 28
 * (RFC 7143 11.2). Data-Out and SNACK carry no CmdSN and extend {@link BhsFlyweight} directly.
 *
 * @param <T> the concrete header
 */
public abstract class InitiatorBhsFlyweight<T extends InitiatorBhsFlyweight<T>> extends BhsFlyweight<T> {
    InitiatorBhsFlyweight() {}

    public final int cmdSN() {
        return buf.getInt(Bhs.CMD_SN_OFFSET);
    }

    public final int expStatSN() {
        return buf.getInt(Bhs.EXP_STAT_SN_OFFSET);
    }
}
