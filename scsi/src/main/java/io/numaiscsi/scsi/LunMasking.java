package io.numaiscsi.scsi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * LUN masking of one target: which of its logical units each initiator sees, and at which LUN numbers. An initiator
 * sees the view that names it, else the view for everyone else, else nothing; {@link #NONE} (the default) lets every
 * initiator see every unit at its own number. Immutable; a lookup is a hash map get and an array read.
 */
public final class LunMasking {
    /** Not masked: every initiator sees every unit at its own LUN number. */
    public static final LunMasking NONE = new LunMasking(Map.of(), null);

    /** One view: the initiators it is for ({@link #OTHERS} for everyone no view names) and LUN number -> unit LUN. */
    public record View(List<String> initiators, Map<Integer, Integer> unitByNumber) {
        public View {
            initiators = List.copyOf(initiators);
            unitByNumber = Map.copyOf(unitByNumber);
        }
    }

    /** The initiator name of the view for everyone no view names. */
    public static final String OTHERS = "*";

    private static final int[] NOTHING = new int[0];

    /** By lower-case initiator name: index = the LUN number the initiator uses, value = the unit's LUN or -1. */
    private final Map<String, int[]> byInitiator;
    /** The view of everyone no view names; null: they see nothing (when masked). */
    private final int[] others;

    private LunMasking(Map<String, int[]> byInitiator, int[] others) {
        this.byInitiator = byInitiator;
        this.others = others;
    }

    /** Masking by {@code views}; with no view at all, {@link #NONE}. */
    public static LunMasking of(List<View> views) {
        if (views.isEmpty()) {
            return NONE;
        }
        Map<String, int[]> byInitiator = new HashMap<>();
        int[] others = NOTHING;
        for (View v : views) {
            int[] table = table(v.unitByNumber());
            for (String initiator : v.initiators()) {
                if (initiator.equals(OTHERS)) {
                    others = table;
                } else if (byInitiator.put(initiator.toLowerCase(Locale.ROOT), table) != null) {
                    throw new IllegalArgumentException("initiator " + initiator + " is in two views");
                }
            }
        }
        return new LunMasking(Map.copyOf(byInitiator), others);
    }

    private static int[] table(Map<Integer, Integer> unitByNumber) {
        int size =
                unitByNumber.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
        int[] t = new int[size];
        Arrays.fill(t, -1);
        unitByNumber.forEach((number, unit) -> {
            if (number < 0 || number > LogicalUnit.MAX_LUN || unit < 0 || unit > LogicalUnit.MAX_LUN) {
                throw new IllegalArgumentException("LUN " + number + " -> " + unit + " out of range");
            }
            t[number] = unit;
        });
        return t;
    }

    /** Whether initiators are masked (else every one sees every unit as it is). */
    public boolean masks() {
        return others != null;
    }

    private int[] viewOf(ItNexus nexus) {
        int[] v = byInitiator.get(nexus.initiatorName()); // ItNexus keeps the name in lower case
        return v != null ? v : others;
    }

    /** The unit's LUN that {@code nexus} names {@code lun}, or -1 when it sees no unit at that number. */
    int unitLun(ItNexus nexus, int lun) {
        if (!masks()) {
            return lun;
        }
        int[] v = viewOf(nexus);
        return lun >= 0 && lun < v.length ? v[lun] : -1;
    }

    /** The number {@code nexus} sees unit LUN {@code unitLun} at, or -1 when it does not see it. */
    int numberOf(ItNexus nexus, int unitLun) {
        if (!masks()) {
            return unitLun;
        }
        int[] v = viewOf(nexus);
        for (int n = 0; n < v.length; n++) {
            if (v[n] == unitLun) {
                return n;
            }
        }
        return -1;
    }

    /** The LUN numbers {@code nexus} sees, ascending, with the unit's LUN each names: pairs {number, unit}. */
    List<int[]> numbersOf(ItNexus nexus, int maxUnit) {
        List<int[]> out = new ArrayList<>();
        if (!masks()) {
            for (int u = 0; u <= maxUnit; u++) {
                out.add(new int[] {u, u});
            }
            return out;
        }
        int[] v = viewOf(nexus);
        for (int n = 0; n < v.length; n++) {
            if (v[n] >= 0) {
                out.add(new int[] {n, v[n]});
            }
        }
        return out;
    }

    /** Whether {@code nexus} sees the same units at the same numbers under both maskings. */
    static boolean sameView(LunMasking a, LunMasking b, ItNexus nexus, int maxUnit) {
        List<int[]> x = a.numbersOf(nexus, maxUnit);
        List<int[]> y = b.numbersOf(nexus, maxUnit);
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            if (!Arrays.equals(x.get(i), y.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LunMasking m)) {
            return false;
        }
        if (masks() != m.masks()
                || !Arrays.equals(others, m.others)
                || !byInitiator.keySet().equals(m.byInitiator.keySet())) {
            return false;
        }
        for (Map.Entry<String, int[]> e : byInitiator.entrySet()) {
            if (!Arrays.equals(e.getValue(), m.byInitiator.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return Objects.hash(byInitiator.keySet(), Arrays.hashCode(others));
    }

    @Override
    public String toString() {
        return !masks()
                ? "every initiator sees every LUN"
                : byInitiator.size() + " initiators with views"
                        + (others.length == 0 ? ", others see nothing" : ", a view for the others");
    }
}
