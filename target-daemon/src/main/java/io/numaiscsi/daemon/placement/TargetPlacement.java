package io.numaiscsi.daemon.placement;

import io.numaiscsi.config.NumaSettings;
import io.numaiscsi.config.TargetDefinition;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

/**
 * Each target's home node: where its event threads run, its connections live, its LUNs' cache blocks, RAM and
 * network buffers sit. A target is the unit because an initiator reaches all of a target's LUNs through one session,
 * one TCP socket, and that socket is written by one thread: data on any other node would cross the interconnect on
 * its way out. SPREAD puts each target on the node with the fewest LUNs so far (config order, then targets added
 * live); PORTAL_NODE puts every target on the portal interface's node.
 */
public final class TargetPlacement implements ToIntFunction<String> {
    private final NumaSettings.Placement policy;
    private final int portalNode;
    private final int[] lunsPerNode;
    private final Map<String, Integer> homes = new ConcurrentHashMap<>();

    public TargetPlacement(int nodes, NumaSettings.Placement policy, int portalNode, List<TargetDefinition> targets) {
        this.policy = policy;
        this.portalNode = portalNode;
        this.lunsPerNode = new int[nodes];
        for (TargetDefinition t : targets) {
            place(t.name(), t.luns().size());
        }
    }

    /** The home of {@code target}; a target not seen before is placed now (with one LUN counted). */
    @Override
    public int applyAsInt(String target) {
        Integer home = homes.get(target);
        return home != null ? home : place(target, 1);
    }

    private synchronized int place(String target, int luns) {
        Integer known = homes.get(target);
        if (known != null) {
            return known;
        }
        int node = policy == NumaSettings.Placement.PORTAL_NODE ? portalNode : leastLoaded();
        lunsPerNode[node] += luns;
        homes.put(target, node);
        return node;
    }

    private int leastLoaded() {
        int best = 0;
        for (int n = 1; n < lunsPerNode.length; n++) {
            if (lunsPerNode[n] < lunsPerNode[best]) {
                best = n;
            }
        }
        return best;
    }

    /** LUNs placed on each node so far. */
    public synchronized int[] lunsPerNode() {
        return lunsPerNode.clone();
    }
}
