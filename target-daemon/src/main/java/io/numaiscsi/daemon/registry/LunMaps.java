package io.numaiscsi.daemon.registry;

import io.numaiscsi.config.LunMap;
import io.numaiscsi.scsi.LunMasking;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A target's {@code lun-maps} as the SCSI layer's {@link LunMasking}, and the maps without a LUN that went. */
final class LunMaps {
    private LunMaps() {}

    static LunMasking masking(List<LunMap> maps) {
        List<LunMasking.View> views = new ArrayList<>();
        for (LunMap m : maps) {
            Map<Integer, Integer> unitByNumber = new HashMap<>();
            for (LunMap.Mapped l : m.luns()) {
                unitByNumber.put(l.as(), l.lun());
            }
            views.add(new LunMasking.View(m.initiators(), unitByNumber));
        }
        return LunMasking.of(views);
    }

    /** {@code maps} with LUN {@code lun} taken out of every entry. */
    static List<LunMap> without(List<LunMap> maps, int lun) {
        return maps.stream()
                .map(m -> new LunMap(
                        m.initiators(),
                        m.luns().stream().filter(l -> l.lun() != lun).toList()))
                .toList();
    }
}
