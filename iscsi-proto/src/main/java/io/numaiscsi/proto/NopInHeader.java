package io.numaiscsi.proto;

/**
 * NOP-In BHS, RFC 7143 11.19. Reusable flyweight; absolute access, indexes untouched. The ITT is 0xffffffff for
 * a target-initiated NOP-In (ping); the Target Transfer Tag 0xffffffff when answering a NOP-Out.
 */
public final class NopInHeader extends TargetBhsFlyweight<NopInHeader>
        implements LunField<NopInHeader>, TransferTagField<NopInHeader> {

    /** Zeroes the BHS and sets the opcode and F bit (always 1). */
    public NopInHeader init() {
        return init(Opcode.NOP_IN, Bhs.FINAL_BIT);
    }
}
