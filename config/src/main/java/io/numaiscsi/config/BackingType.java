package io.numaiscsi.config;

/** Where a LUN's blocks live. */
public enum BackingType {
    /** A file on disk (created sparse when missing). */
    FILE,
    /** Process memory; contents are lost at shutdown. */
    RAM,
    /** No storage: reads return zeroes, writes are dropped (measuring the protocol path alone). */
    NULL,
    /** A block device (disk, zvol, LVM volume, loop device), opened exclusively; size and block size from it. */
    BLOCK,
    /** A Ceph RBD image through librbd; size from the image. */
    RBD
}
