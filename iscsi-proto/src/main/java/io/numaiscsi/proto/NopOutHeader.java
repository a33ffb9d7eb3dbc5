package io.numaiscsi.proto;

/**
 * NOP-Out BHS, RFC 7143 11.18. Reusable flyweight; absolute access, indexes untouched. The ITT is 0xffffffff
 * when the NOP-Out answers a target NOP-In (no response wanted).
 */
public final class NopOutHeader extends InitiatorBhsFlyweight<NopOutHeader>
        implements LunField<NopOutHeader>, TransferTagField<NopOutHeader> {}
