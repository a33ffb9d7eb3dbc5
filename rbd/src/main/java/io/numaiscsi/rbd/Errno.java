package io.numaiscsi.rbd;

/** The errno values librados and librbd return (as -errno) that this module tells apart. */
final class Errno {
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EIO = 5;
    static final int EACCES = 13;
    static final int EAGAIN = 11;
    static final int EBUSY = 16;
    static final int EEXIST = 17;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int EROFS = 30;
    static final int ERANGE = 34;
    static final int ENODATA = 61;
    static final int ENOTCONN = 107;
    /** Also Ceph's EBLOCKLISTED: this client was blocklisted by the cluster. */
    static final int ESHUTDOWN = 108;

    static final int ETIMEDOUT = 110;
    static final int EDQUOT = 122;
    /** Ceph's ECANCELED, returned by a write op whose version assertion failed. */
    static final int ECANCELED = 125;

    private Errno() {}

    /** "ENOENT (2)" and the like, for messages. */
    static String name(int errno) {
        int e = Math.abs(errno);
        String n = switch (e) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EIO -> "EIO";
            case EACCES -> "EACCES";
            case EAGAIN -> "EAGAIN";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case EINVAL -> "EINVAL";
            case ENOSPC -> "ENOSPC";
            case EROFS -> "EROFS";
            case ERANGE -> "ERANGE";
            case ENODATA -> "ENODATA";
            case ENOTCONN -> "ENOTCONN";
            case ESHUTDOWN -> "ESHUTDOWN/EBLOCKLISTED";
            case ETIMEDOUT -> "ETIMEDOUT";
            case EDQUOT -> "EDQUOT";
            case ECANCELED -> "ECANCELED";
            default -> "errno";
        };
        return n + " (" + e + ")";
    }
}
