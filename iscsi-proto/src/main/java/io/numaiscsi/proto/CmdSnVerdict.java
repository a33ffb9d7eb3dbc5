package io.numaiscsi.proto;

/** What to do with an arriving command, by its CmdSN (RFC 7143 4.2.2.1). */
public enum CmdSnVerdict {
    /** CmdSN == ExpCmdSN: deliver now, then call {@link CmdSnWindow#accepted()}. */
    ACCEPT,
    /** In the window but ahead of ExpCmdSN: hold until the gap is filled. */
    QUEUE,
    /** Outside the window (or an old duplicate): silently ignore. */
    DISCARD,
    /** Immediate command: delivered at once, not numbered. */
    IMMEDIATE
}
