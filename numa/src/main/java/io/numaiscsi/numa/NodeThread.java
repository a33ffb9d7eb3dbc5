package io.numaiscsi.numa;

/** A thread that belongs to one node; cheap to ask on the hot path ({@link #currentNode()}). */
public final class NodeThread extends Thread {
  private final int node;

  NodeThread(Runnable task, String name, int node) {
    super(task, name);
    this.node = node;
  }

  public int node() {
    return node;
  }

  /** The node index of the calling thread, or -1 when it is not a node thread. */
  public static int currentNode() {
    return Thread.currentThread() instanceof NodeThread t ? t.node : -1;
  }
}
