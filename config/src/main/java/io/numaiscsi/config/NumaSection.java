package io.numaiscsi.config;

import java.util.List;
import java.util.Locale;

/** The {@code numa:} section. */
final class NumaSection {

    static final String KEY = "numa";
    static final List<String> KEYS = List.of("pretend-nodes", "placement");

    private NumaSection() {}

    static NumaSettings read(Fields root) throws ConfigException {
        Fields f = root.section(KEY, KEYS);
        NumaSettings d = NumaSettings.DEFAULT;
        int pretend = d.pretendNodes();
        Cursor c = f.optional("pretend-nodes");
        if (c != null) {
            pretend = c.integer(0, 64);
            if (pretend == 1) {
                throw c.error("1 is not allowed (0 = the real topology, 2..64 pretend nodes)");
            }
        }
        NumaSettings.Placement placement = d.placement();
        c = f.optional("placement");
        if (c != null) {
            placement = switch (c.text().toLowerCase(Locale.ROOT)) {
                case "spread" -> NumaSettings.Placement.SPREAD;
                case "portal-node" -> NumaSettings.Placement.PORTAL_NODE;
                default -> throw c.error("\"" + c.text() + "\" is not a placement (use spread or portal-node)");
            };
        }
        return new NumaSettings(pretend, placement);
    }
}
