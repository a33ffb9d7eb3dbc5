package io.numaiscsi.blockdev.backstore;

/**
 * How a LUN's store is opened: a read-only LUN's file or device is opened O_RDONLY, so the daemon cannot change it
 * even by a bug, and a file only its owner may read, a file on a read-only mount or a device set read-only
 * ({@code blockdev --setro}, {@code losetup -r}) can be served.
 */
public enum BackingAccess {
    READ_WRITE(LibC.O_RDWR),
    READ_ONLY(LibC.O_RDONLY);

    private final int openFlag;

    BackingAccess(int openFlag) {
        this.openFlag = openFlag;
    }

    /** O_RDWR or O_RDONLY. */
    int openFlag() {
        return openFlag;
    }

    boolean writable() {
        return this == READ_WRITE;
    }
}
