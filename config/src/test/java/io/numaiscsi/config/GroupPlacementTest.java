package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.config.GroupPlacement.LunRef;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Owners spread evenly, a removed member's LUNs go to the others, and a rebalance moves as few LUNs as it can. */
class GroupPlacementTest {
    private static final String T = "iqn.2026-11.io.numaiscsi:t";

    /** {@code owners[i]} owns LUN i of one target; members gw1..gwN on ports 1..N. */
    private static GroupDocument doc(int members, String... owners) throws ConfigException {
        StringBuilder s = new StringBuilder("group-format: 1\nfsid: f\nmembers:\n");
        for (int m = 1; m <= members; m++) {
            s.append("  - {name: gw").append(m).append(", port: ").append(m).append("}\n");
        }
        s.append("targets:\n  - name: ").append(T).append("\n    luns:\n");
        for (int i = 0; i < owners.length; i++) {
            s.append("      - {id: ")
                    .append(i)
                    .append(", backing: rbd, image: i")
                    .append(i)
                    .append(", owner: ")
                    .append(owners[i])
                    .append("}\n");
        }
        return GroupDocument.parse(s.toString(), "doc", SecretCodec.PLAIN);
    }

    private static Map<String, Integer> counts(GroupDocument doc) {
        Map<String, Integer> c = new HashMap<>();
        for (LunRef ref : GroupPlacement.luns(doc)) {
            c.merge(GroupPlacement.ownerOf(doc, ref), 1, Integer::sum);
        }
        return c;
    }

    @Test
    void aNewLunGoesToTheMemberOwningTheFewest() throws ConfigException {
        GroupDocument d = doc(3, "gw1", "gw1", "gw2");
        assertEquals("gw3", GroupPlacement.leastLoaded(d, List.of("gw1", "gw2", "gw3")));
        assertEquals("gw2", GroupPlacement.leastLoaded(d, List.of("gw1", "gw2")));
    }

    @Test
    void aMoveChangesOneOwnerAndCountsAPlacement() throws ConfigException {
        GroupDocument d = doc(2, "gw1", "gw1");
        GroupDocument moved = GroupPlacement.move(d, new LunRef(T, 1), "gw2");
        assertEquals("gw2", GroupPlacement.ownerOf(moved, new LunRef(T, 1)));
        assertEquals("gw1", GroupPlacement.ownerOf(moved, new LunRef(T, 0)));
        assertEquals(d.placement() + 1, moved.placement());
    }

    @Test
    void aRemovedMembersLunsGoToTheOthersEvenly() throws ConfigException {
        GroupDocument d = doc(3, "gw1", "gw1", "gw2", "gw3", "gw1", "gw1");
        GroupDocument without = GroupPlacement.withoutMember(d, "gw1");
        assertEquals(2, without.members().size());
        assertEquals(Map.of("gw2", 3, "gw3", 3), counts(without));
        assertEquals("gw2", GroupPlacement.ownerOf(without, new LunRef(T, 2)), "a LUN of a staying member stays");
        assertEquals("gw3", GroupPlacement.ownerOf(without, new LunRef(T, 3)));
    }

    @Test
    void aRebalanceEvensTheCountsOverTheMembersUpAndMovesFew() throws ConfigException {
        // gw1 failed and came back: gw2 serves all four now
        GroupDocument d = doc(2, "gw1", "gw1", "gw2", "gw2");
        Map<LunRef, String> servedBy = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            servedBy.put(new LunRef(T, i), "gw2");
        }
        GroupDocument balanced = GroupPlacement.rebalance(d, List.of("gw1", "gw2"), servedBy);
        assertEquals(Map.of("gw1", 2, "gw2", 2), counts(balanced));
        assertEquals(d.placement() + 1, balanced.placement());
        // three members up, one down: the down member gets nothing
        GroupDocument three = doc(3, "gw1", "gw2", "gw3", "gw1", "gw2", "gw3", "gw3");
        GroupDocument spread = GroupPlacement.rebalance(three, List.of("gw1", "gw2"), Map.of());
        assertEquals(Map.of("gw1", 4, "gw2", 3), counts(spread));
        int moved = 0;
        for (LunRef ref : GroupPlacement.luns(three)) {
            if (!GroupPlacement.ownerOf(three, ref).equals(GroupPlacement.ownerOf(spread, ref))) {
                moved++;
            }
        }
        assertEquals(3, moved, "only gw3's three LUNs move");
        assertTrue(GroupPlacement.rebalance(three, List.of(), Map.of()) == three);
    }

    @Test
    void aDownMembersLunsGoWhereAnInitiatorMovedThemElseToTheFewestOwning() throws ConfigException {
        GroupDocument d = doc(3, "gw1", "gw1", "gw2", "gw3");
        Map<LunRef, String> owners = GroupPlacement.ownersInPlaceOfDown(
                d, List.of("gw2", "gw3"), Map.of(new LunRef(T, 0), "gw3", new LunRef(T, 1), "gw1"));
        assertEquals(
                Map.of(new LunRef(T, 0), "gw3", new LunRef(T, 1), "gw2"),
                owners,
                "LUN 0 stays where the initiator moved it; LUN 1's server is down too: the fewest-owning member");
        assertTrue(GroupPlacement.ownersInPlaceOfDown(d, List.of("gw1", "gw2", "gw3"), Map.of())
                .isEmpty());
        GroupDocument moved = GroupPlacement.moveAll(d, owners);
        assertEquals(d.placement() + 1, moved.placement());
        assertEquals(Map.of("gw2", 2, "gw3", 2), counts(moved));
    }
}
