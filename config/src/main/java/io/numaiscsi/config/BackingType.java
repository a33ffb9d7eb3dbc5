package io.numaiscsi.config;

/** Where a LUN's blocks live. */
public enum BackingType {
    /** A file on disk (created sparse when missing). */
    FILE,
    /** Process memory; contents are lost at shutdown. */
    RAM,
    /** A block device (disk, zvol, LVM volume, loop device), opened exclusively; size and block size from it. */
    BLOCK
}
