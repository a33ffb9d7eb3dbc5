package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code numa-iscsi-admin lun-resize TARGET --id N --size SIZE}: the {@code lun.resize} method. */
@Command(name = "lun-resize", description = "Grows a LUN of a running target; its sessions hear CAPACITY DATA HAS "
        + "CHANGED and READ CAPACITY reports the new size. Set the new size in the config file too.")
final class LunResizeCommand extends AdminCli.Call {
    @Parameters(index = "0", paramLabel = "TARGET", description = "the target's IQN")
    String target;
    @Option(names = "--id", required = true, description = "LUN number")
    int id;
    @Option(names = "--size", required = true, description = "the new size, e.g. 2G; larger than now (LUNs only grow)")
    String size;

    @Override
    String method() {
        return "lun.resize";
    }

    @Override
    ObjectNode params() {
        return JsonNodeFactory.instance.objectNode().put("target", target).put("id", id).put("size", size);
    }

    @Override
    void print(JsonNode r, PrintWriter out) {
        out.println("resized LUN " + r.path("id").asInt() + " of " + r.path("target").asText() + " to "
                + r.path("size").asLong() + " bytes");
    }
}
