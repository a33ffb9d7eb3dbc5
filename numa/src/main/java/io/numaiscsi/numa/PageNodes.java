package io.numaiscsi.numa;

import java.util.Arrays;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * The node each page of our memory sits on, asked of the kernel ({@code move_pages} with no target nodes) once per
 * page and remembered in a direct-mapped table (a page does not move unless someone migrates it; the table forgets
 * it when another page takes its entry). Pages not faulted in yet are not remembered. Any thread.
 */
public final class PageNodes {
    private static final int PAGE_SHIFT = 12;
    private static final int TABLE_BITS = 16;

    private final LibNuma libnuma;
    private final int[] indexOfOsNode;
    /** (page << 8) | (node index + 1); 0 is empty. Racy by design: each entry is one long, written whole. */
    private final long[] table = new long[1 << TABLE_BITS];

    private final ThreadLocal<Query> queries;

    private PageNodes(LibNuma libnuma, NumaTopology topology) {
        this.libnuma = libnuma;
        int maxOs = 0;
        for (NumaNode n : topology.nodes()) {
            maxOs = Math.max(maxOs, n.osNode());
        }
        indexOfOsNode = new int[maxOs + 1];
        Arrays.fill(indexOfOsNode, -1);
        for (NumaNode n : topology.nodes()) {
            if (indexOfOsNode[n.osNode()] < 0) {
                indexOfOsNode[n.osNode()] = n.index();
            }
        }
        Runtime rt = Runtime.getRuntime(libnuma);
        queries = ThreadLocal.withInitial(() -> new Query(rt));
    }

    /** Page placement for {@code topology}; null without libnuma (callers then know no memory node). */
    public static PageNodes open(NumaTopology topology) {
        LibNuma lib = LibNuma.load();
        return lib == null ? null : new PageNodes(lib, topology);
    }

    /** The dense node index of the page holding {@code address}; -1 when unknown (not faulted in, not ours). */
    public int nodeOf(long address) {
        long page = address >>> PAGE_SHIFT;
        int slot = (int) (page ^ (page >>> TABLE_BITS)) & (table.length - 1);
        long e = table[slot];
        if (e != 0 && e >>> 8 == page) {
            return (int) (e & 0xff) - 1;
        }
        int node = ask(page);
        if (node >= 0) {
            table[slot] = page << 8 | (node + 1);
        }
        return node;
    }

    private int ask(long page) {
        Query q = queries.get();
        q.pages.putLong(0, page << PAGE_SHIFT);
        q.status.putInt(0, -1);
        long r = libnuma.numa_move_pages(0, 1, q.pages, null, q.status, 0);
        int os = q.status.getInt(0);
        if (r != 0 || os < 0 || os >= indexOfOsNode.length) {
            return -1;
        }
        return indexOfOsNode[os];
    }

    /** One thread's argument arrays for move_pages, made once. */
    private static final class Query {
        final Pointer pages;
        final Pointer status;

        Query(Runtime rt) {
            pages = Memory.allocateDirect(rt, 8);
            status = Memory.allocateDirect(rt, 4);
        }
    }
}
