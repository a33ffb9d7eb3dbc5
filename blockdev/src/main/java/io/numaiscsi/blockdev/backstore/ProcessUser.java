package io.numaiscsi.blockdev.backstore;

import com.sun.security.auth.module.UnixSystem;

/** The user the daemon runs as: the owner its files and directories must have. */
public final class ProcessUser {
    private static final UnixSystem SYSTEM = new UnixSystem();

    private ProcessUser() {}

    public static long uid() {
        return SYSTEM.getUid();
    }

    /** The user name for messages ({@code chown NAME ...}), the uid where the name is unknown. */
    public static String name() {
        String name = SYSTEM.getUsername();
        return name == null || name.isEmpty() ? Long.toString(uid()) : name;
    }
}
