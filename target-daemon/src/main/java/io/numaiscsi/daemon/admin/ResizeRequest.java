package io.numaiscsi.daemon.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.numaiscsi.config.ConfigLoader;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegistryOperation;

/**
 * The params of {@code lun.resize}, {@code {"target": NAME, "id": N, "size": "2G"}}, checked against the running
 * target: the LUN exists, and the size (as the config file writes sizes, or a number of bytes) is one it may grow to,
 * by the config file's rules. Every refusal is INVALID_PARAMS naming the field.
 */
final class ResizeRequest {
    private static final String METHOD = "lun.resize";

    private ResizeRequest() {}

    static RegistryOperation.ResizeLun of(JsonNode params, TargetDefinition target) throws AdminError {
        LunDefinition lun = lun(params, target);
        long size = size(params.get("size"));
        try {
            lun.grownTo(size);
        } catch (IllegalArgumentException e) {
            throw invalid("params.size: " + e.getMessage());
        }
        return new RegistryOperation.ResizeLun(target.name(), lun.id(), size);
    }

    private static LunDefinition lun(JsonNode params, TargetDefinition target) throws AdminError {
        JsonNode id = params.get("id");
        if (id == null || !id.isIntegralNumber() || !id.canConvertToInt()) {
            throw invalid("params.id (the LUN number) is required");
        }
        LunDefinition lun = target.lun(id.asInt());
        if (lun == null) {
            throw invalid("params.id: target " + target.name() + " has no LUN " + id.asInt());
        }
        return lun;
    }

    private static long size(JsonNode size) throws AdminError {
        if (size != null && size.isIntegralNumber() && size.canConvertToLong()) {
            return size.asLong();
        }
        if (size == null || !size.isTextual()) {
            throw invalid("params.size is required: the new size as the config file writes it (e.g. \"2G\") or a "
                    + "number of bytes");
        }
        try {
            return ConfigLoader.parseSize(size.asText());
        } catch (IllegalArgumentException e) {
            throw invalid("params.size: " + e.getMessage());
        }
    }

    private static AdminError invalid(String problem) {
        return new AdminError(AdminError.INVALID_PARAMS, METHOD + ": " + problem);
    }
}
