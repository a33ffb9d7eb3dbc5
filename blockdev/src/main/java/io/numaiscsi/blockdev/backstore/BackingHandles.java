package io.numaiscsi.blockdev.backstore;

import java.nio.channels.FileChannel;

/**
 * What an opened file or block device is reached through: how it was opened, the alignment O_DIRECT requests must
 * satisfy, its buffered and (or null) O_DIRECT channels, and its descriptor with the C library to use it.
 */
record BackingHandles(
        BackingAccess access, int alignment, FileChannel buffered, FileChannel direct, LibC libc, int fd) {}
