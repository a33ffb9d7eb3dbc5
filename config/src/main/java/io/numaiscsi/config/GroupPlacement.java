package io.numaiscsi.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Which member of a gateway group owns (is active/optimized for) each LUN: a new LUN goes to the member owning the
 * fewest, a removed member's LUNs to the others, and a rebalance spreads them evenly over the members that are up,
 * moving as few as it can. Each placement that moves LUNs counts up {@link GroupDocument#placement}.
 */
public final class GroupPlacement {
    /** A LUN of the group. */
    public record LunRef(String target, int lun) {
        @Override
        public String toString() {
            return target + " LUN " + lun;
        }
    }

    private GroupPlacement() {}

    /** The member that should own one more LUN: the one owning the fewest among {@code candidates}. */
    public static String leastLoaded(GroupDocument doc, List<String> candidates) {
        Map<String, Integer> load = load(doc, candidates);
        return candidates.stream()
                .min(Comparator.comparing((String m) -> load.get(m))
                        .thenComparing(m -> doc.member(m).port()))
                .orElse(null);
    }

    /** {@code lun} owned by {@code member} from now. */
    public static GroupDocument move(GroupDocument doc, LunRef lun, String member) {
        return moveAll(doc, Map.of(lun, member));
    }

    /** Each LUN of {@code owners} owned by the member it names, from now (one placement). */
    public static GroupDocument moveAll(GroupDocument doc, Map<LunRef, String> owners) {
        return doc.placed(withOwners(doc, owners::get));
    }

    /**
     * New owners for the LUNs whose owner is not up: the member serving one now where that member is up (an initiator
     * moved it there already), else the member owning the fewest among {@code up}. Empty when every owner is up.
     */
    public static Map<LunRef, String> ownersInPlaceOfDown(
            GroupDocument doc, List<String> up, Map<LunRef, String> servedBy) {
        Map<LunRef, String> out = new HashMap<>();
        if (up.isEmpty()) {
            return out;
        }
        Map<String, Integer> load = load(doc, up);
        for (LunRef ref : luns(doc)) {
            String owner = ownerOf(doc, ref);
            if (owner != null && up.contains(owner)) {
                continue;
            }
            String serving = servedBy.get(ref);
            String next = serving != null && up.contains(serving) ? serving : fewest(load, doc);
            load.merge(next, 1, Integer::sum);
            out.put(ref, next);
        }
        return out;
    }

    /** Without {@code member}; the LUNs it owned go to the others, fewest-owning first. */
    public static GroupDocument withoutMember(GroupDocument doc, String member) {
        List<GroupDocument.Member> rest =
                doc.members().stream().filter(m -> !m.name().equals(member)).toList();
        GroupDocument smaller = doc.withMembers(rest);
        List<String> names = rest.stream().map(GroupDocument.Member::name).toList();
        Map<String, Integer> load = load(smaller, names);
        List<TargetDefinition> targets = withOwners(smaller, ref -> {
            String owner = ownerOf(smaller, ref);
            if (!member.equals(owner) || names.isEmpty()) {
                return null;
            }
            String next = fewest(load, smaller);
            load.merge(next, 1, Integer::sum);
            return next;
        });
        return smaller.placed(targets);
    }

    /**
     * Spreads the LUNs over {@code up} evenly (counts differ by at most one). A LUN stays where it is served now
     * ({@code servedBy}, or its owner when not known) if that member is up and under its share; the others go to the
     * member owning the fewest.
     */
    public static GroupDocument rebalance(GroupDocument doc, List<String> up, Map<LunRef, String> servedBy) {
        if (up.isEmpty()) {
            return doc;
        }
        List<LunRef> luns = luns(doc);
        int share = (luns.size() + up.size() - 1) / up.size();
        Map<String, Integer> load = new HashMap<>();
        up.forEach(m -> load.put(m, 0));
        Map<LunRef, String> placed = new HashMap<>();
        List<LunRef> homeless = new ArrayList<>();
        for (LunRef ref : luns) {
            String now = servedBy.getOrDefault(ref, ownerOf(doc, ref));
            if (now != null && load.containsKey(now) && load.get(now) < share) {
                load.merge(now, 1, Integer::sum);
                placed.put(ref, now);
            } else {
                homeless.add(ref);
            }
        }
        for (LunRef ref : homeless) {
            String next = fewest(load, doc);
            load.merge(next, 1, Integer::sum);
            placed.put(ref, next);
        }
        return doc.placed(withOwners(doc, placed::get));
    }

    /** Every LUN of the group, in document order. */
    public static List<LunRef> luns(GroupDocument doc) {
        List<LunRef> out = new ArrayList<>();
        for (TargetDefinition t : doc.targets()) {
            for (LunDefinition lun : t.luns()) {
                out.add(new LunRef(t.name(), lun.id()));
            }
        }
        return out;
    }

    /** The LUN's owner in {@code doc}, or null. */
    public static String ownerOf(GroupDocument doc, LunRef ref) {
        for (TargetDefinition t : doc.targets()) {
            if (t.name().equals(ref.target())) {
                LunDefinition lun = t.lun(ref.lun());
                return lun == null ? null : lun.rbd().owner();
            }
        }
        return null;
    }

    private static String fewest(Map<String, Integer> load, GroupDocument doc) {
        return load.keySet().stream()
                .min(Comparator.comparing((String m) -> load.get(m))
                        .thenComparing(m -> doc.member(m).port()))
                .orElseThrow();
    }

    private static Map<String, Integer> load(GroupDocument doc, List<String> members) {
        Map<String, Integer> load = new HashMap<>();
        members.forEach(m -> load.put(m, 0));
        for (LunRef ref : luns(doc)) {
            String owner = ownerOf(doc, ref);
            if (owner != null && load.containsKey(owner)) {
                load.merge(owner, 1, Integer::sum);
            }
        }
        return load;
    }

    /** The targets with the owners {@code newOwner} gives (null: unchanged). */
    private static List<TargetDefinition> withOwners(GroupDocument doc, Function<LunRef, String> newOwner) {
        List<TargetDefinition> targets = new ArrayList<>();
        for (TargetDefinition t : doc.targets()) {
            List<LunDefinition> luns = new ArrayList<>();
            for (LunDefinition lun : t.luns()) {
                String owner = newOwner.apply(new LunRef(t.name(), lun.id()));
                luns.add(owner == null ? lun : lun.withRbd(lun.rbd().withOwner(owner)));
            }
            targets.add(t.withLuns(luns));
        }
        return targets;
    }
}
