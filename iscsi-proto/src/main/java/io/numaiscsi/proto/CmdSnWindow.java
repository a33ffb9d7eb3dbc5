package io.numaiscsi.proto;

/**
 * Target-side command numbering of one session (RFC 7143 3.2.2.1, 4.2.2.1).
 * MaxCmdSN = ExpCmdSN + queueDepth - 1 - outstanding, never below ExpCmdSN - 1 (closed window).
 * Single-threaded: owned by the session's event thread.
 */
public final class CmdSnWindow {
    private final int queueDepth;
    private int expCmdSN;
    private int outstanding;

    public CmdSnWindow(int queueDepth) {
        if (queueDepth < 1) {
            throw new IllegalArgumentException("queueDepth must be >= 1: " + queueDepth);
        }
        this.queueDepth = queueDepth;
    }

    /** Starts numbering at the CmdSN of the leading login request. */
    public void start(int initialCmdSN) {
        expCmdSN = initialCmdSN;
        outstanding = 0;
    }

    public int expCmdSN() {
        return expCmdSN;
    }

    public int maxCmdSN() {
        int open = queueDepth - outstanding;
        return open > 0 ? expCmdSN + open - 1 : expCmdSN - 1;
    }

    public int outstanding() {
        return outstanding;
    }

    public CmdSnVerdict check(int cmdSN, boolean immediate) {
        if (immediate) {
            return CmdSnVerdict.IMMEDIATE;
        }
        if (!SerialNumber.inWindow(cmdSN, expCmdSN, maxCmdSN())) {
            return CmdSnVerdict.DISCARD;
        }
        return cmdSN == expCmdSN ? CmdSnVerdict.ACCEPT : CmdSnVerdict.QUEUE;
    }

    /** After an ACCEPT verdict: ExpCmdSN advances by one. */
    public void accepted() {
        expCmdSN++;
    }

    public void taskStarted() {
        outstanding++;
    }

    public void taskFinished() {
        if (outstanding == 0) {
            throw new IllegalStateException("taskFinished without taskStarted");
        }
        outstanding--;
    }
}
