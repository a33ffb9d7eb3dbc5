package io.numaiscsi.numa;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The libnuma calls we use (Debian package libnuma1). Addresses travel as 64-bit integers. Public only because jnr-ffi generates its implementation in another class loader. */
public interface LibNuma {
    int numa_available();

    int numa_max_node();

    long numa_alloc_onnode(long size, int node);

    void numa_free(long start, long size);

    /** move_pages(2) with nodes == NULL: reports the node of each page in status. */
    long numa_move_pages(int pid, long count, Pointer pages, Pointer nodes, Pointer status, int flags);

    /** libnuma when it loads and numa_available() is not -1; otherwise null (callers fall back). */
    static LibNuma load() {
        Logger log = LoggerFactory.getLogger(LibNuma.class);
        try {
            // Debian's runtime package ships only libnuma.so.1 (the unversioned link is in libnuma-dev)
            LibNuma lib = LibraryLoader.create(LibNuma.class).failImmediately().load("libnuma.so.1");
            if (lib.numa_available() < 0) {
                log.info("libnuma loaded but numa_available() says NUMA is not supported here");
                return null;
            }
            return lib;
        } catch (RuntimeException | LinkageError e) {
            log.info("libnuma not loadable ({}); install libnuma1 for node-bound memory", e.toString());
            return null;
        }
    }
}
