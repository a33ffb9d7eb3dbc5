package io.numaiscsi.numa;

import java.util.BitSet;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import net.openhft.affinity.Affinity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Pins threads to the CPUs of a node through OpenHFT Affinity (sched_setaffinity). */
public final class CpuPinning {
    private static final Logger LOG = LoggerFactory.getLogger(CpuPinning.class);

    private CpuPinning() {}

    /** Restricts the calling thread to the node's CPUs; false (and a log line) when that fails. */
    public static boolean pinCurrentThread(NumaNode node) {
        BitSet cpus = node.cpus();
        if (hasNoCpus(node, cpus)) {
            return false;
        }
        try {
            Affinity.setAffinity(cpus);
            return true;
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("cannot pin thread {} to {}: {}", Thread.currentThread().getName(), cpus, e.toString());
            return false;
        }
    }

    /**
     * Pins the calling thread to one CPU of the node, the {@code ordinal}-th modulo the node's CPU count,
     * and binds it to the node ({@link NodeThread#currentNode()}). For event threads: one core each.
     */
    public static boolean pinCurrentThreadToCore(NumaNode node, int ordinal) {
        BitSet cpus = node.cpus();
        NodeThread.bindCurrentThread(node.index());
        if (hasNoCpus(node, cpus)) {
            return false;
        }
        int cpu = cpus.nextSetBit(0);
        for (int i = 0; i < Math.floorMod(ordinal, cpus.cardinality()); i++) {
            cpu = cpus.nextSetBit(cpu + 1);
        }
        BitSet one = new BitSet();
        one.set(cpu);
        try {
            Affinity.setAffinity(one);
            return true;
        } catch (RuntimeException | LinkageError e) {
            LOG.warn(
                    "cannot pin thread {} to cpu {}: {}", Thread.currentThread().getName(), cpu, e.toString());
            return false;
        }
    }

    /** Whether {@code cpus}, the node's, is empty, and the calling thread so stays unpinned (logged). */
    private static boolean hasNoCpus(NumaNode node, BitSet cpus) {
        if (cpus.isEmpty()) {
            LOG.warn(
                    "{} has no CPUs; thread {} stays unpinned",
                    node,
                    Thread.currentThread().getName());
            return true;
        }
        return false;
    }

    /** The calling thread's current CPU set. */
    public static BitSet currentAffinity() {
        return Affinity.getAffinity();
    }

    /** Threads named {@code prefix-N}, pinned to the node's CPUs when they start, that know their node. */
    public static ThreadFactory threadFactory(NumaNode node, String prefix, boolean daemon) {
        return new NodeThreadFactory(node, prefix, daemon);
    }

    private static final class NodeThreadFactory implements ThreadFactory {
        private final NumaNode node;
        private final String prefix;
        private final boolean daemon;
        private final AtomicInteger count = new AtomicInteger();

        NodeThreadFactory(NumaNode node, String prefix, boolean daemon) {
            this.node = node;
            this.prefix = prefix;
            this.daemon = daemon;
        }

        @Override
        public Thread newThread(Runnable task) {
            Runnable pinned = new PinThenRun(node, task);
            Thread t = new NodeThread(pinned, prefix + "-" + count.getAndIncrement(), node.index());
            t.setDaemon(daemon);
            return t;
        }
    }

    private static final class PinThenRun implements Runnable {
        private final NumaNode node;
        private final Runnable task;

        PinThenRun(NumaNode node, Runnable task) {
            this.node = node;
            this.task = task;
        }

        @Override
        public void run() {
            pinCurrentThread(node);
            task.run();
        }
    }
}
