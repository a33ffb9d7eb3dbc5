package io.numaiscsi.blockdev;

/** Outcome of one {@link BlockDevice} operation. */
public enum IoStatus {
    OK,
    /** The medium could not be read or written. */
    MEDIUM_ERROR,
    /** Thin provisioning: no space left to allocate blocks (ENOSPC). */
    NO_SPACE,
    /** Offset or length outside the device: a bug in the caller. */
    OUT_OF_RANGE,
    /** The device is closed or its executor refused the work. */
    UNAVAILABLE
}
