package io.numaiscsi.blockdev;

import java.io.IOException;

/**
 * What a thin store has mapped and could still map: the LBA mapping resources of SBC-4 4.7.3.7, read for the Logical
 * Block Provisioning log page and the soft threshold. Each call asks the store afresh (a system call or two): callers
 * keep it off the data path.
 */
public interface MappingResources {
    /** Bytes the store holds for the unit's blocks now (a file's allocated blocks); may exceed the unit's size. */
    long usedBytes() throws IOException;

    /** Bytes the store could still allocate for the unit (a file system's free space), not capped by the unit's size. */
    long freeBytes() throws IOException;

    /** Whether {@link #freeBytes} is shared with other units or files (a file system) rather than the unit's own. */
    boolean freeShared();
}
