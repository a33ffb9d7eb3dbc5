package io.numaiscsi.proto;

/**
 * Text Response BHS, RFC 7143 11.11. Reusable flyweight. The Target Transfer Tag is 0xffffffff on the final
 * response and another value when more text follows (C or F=0).
 */
public final class TextResponseHeader extends TargetBhsFlyweight<TextResponseHeader>
        implements LunField<TextResponseHeader>, TransferTagField<TextResponseHeader> {
    public static final int CONTINUE_BIT = TextRequestHeader.CONTINUE_BIT;

    /** Zeroes the BHS and sets the opcode. */
    public TextResponseHeader init() {
        return init(Opcode.TEXT_RESPONSE, 0);
    }

    public boolean continueBit() {
        return flag(CONTINUE_BIT);
    }

    public TextResponseHeader continueBit(boolean on) {
        return flag(CONTINUE_BIT, on);
    }
}
