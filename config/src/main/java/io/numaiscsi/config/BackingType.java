package io.numaiscsi.config;

/** Where a LUN's blocks live. */
public enum BackingType {
    /** A file on disk (created sparse when missing). */
    FILE,
    /** Process memory; contents are lost at shutdown. */
    RAM
}
