package io.numaiscsi.proto;

/** Text Request BHS, RFC 7143 11.10. Reusable flyweight. */
public final class TextRequestHeader extends InitiatorBhsFlyweight<TextRequestHeader>
        implements LunField<TextRequestHeader>, TransferTagField<TextRequestHeader> {
    public static final int CONTINUE_BIT = 0x40;

    public boolean continueBit() {
        return flag(CONTINUE_BIT);
    }
}
