package io.numaiscsi.daemon.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaiscsi.config.BackingType;
import io.numaiscsi.config.LunDefinition;
import io.numaiscsi.config.TargetDefinition;
import io.numaiscsi.daemon.registry.RegistryOperation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The params of lun.resize: sizes as the config file writes them or bytes; every refusal names its field. */
class ResizeRequestTest {
    private static final String IQN = "iqn.2026-11.io.numaiscsi:disk0";
    private static final TargetDefinition TARGET = new TargetDefinition(
            IQN,
            null,
            List.of(),
            List.of(new LunDefinition(0, BackingType.FILE, Path.of("/d/lun0.img"), 16L << 20, 512, null)));
    private static final ObjectMapper JSON = new ObjectMapper();

    private static RegistryOperation.ResizeLun parse(String params) throws Exception {
        return ResizeRequest.of(JSON.readTree(params), TARGET);
    }

    private static String refusal(String params) throws Exception {
        JsonNode p = JSON.readTree(params);
        AdminError e = assertThrows(AdminError.class, () -> ResizeRequest.of(p, TARGET));
        assertEquals(AdminError.INVALID_PARAMS, e.code, e.getMessage());
        return e.getMessage();
    }

    @Test
    void aSizeAsTheConfigFileWritesItOrBytes() throws Exception {
        assertEquals(new RegistryOperation.ResizeLun(IQN, 0, 32L << 20), parse("{\"id\": 0, \"size\": \"32M\"}"));
        assertEquals(new RegistryOperation.ResizeLun(IQN, 0, 33554944), parse("{\"id\": 0, \"size\": 33554944}"));
        assertEquals(new RegistryOperation.ResizeLun(IQN, 0, 1L << 30), parse("{\"id\": 0, \"size\": \"1073741824\"}"));
    }

    @Test
    void eachRefusalNamesItsField() throws Exception {
        assertEquals(
                "lun.resize: params.size: \"lots\" is not a size (use bytes or a K/M/G/T suffix)",
                refusal("{\"id\": 0, \"size\": \"lots\"}"));
        assertEquals(
                "lun.resize: params.size: 8388608 bytes is not larger than the LUN's 16777216 bytes (a LUN only"
                        + " grows: shrinking would cut off data)",
                refusal("{\"id\": 0, \"size\": \"8M\"}"));
        assertEquals(
                "lun.resize: params.size: 33554688 bytes is not a multiple of block-size 512",
                refusal("{\"id\": 0, \"size\": 33554688}"));
        assertEquals("lun.resize: params.size: size must be greater than 0", refusal("{\"id\": 0, \"size\": -5}"));
        assertEquals(
                "lun.resize: params.size is required: the new size as the config file writes it (e.g. \"2G\") or"
                        + " a number of bytes",
                refusal("{\"id\": 0, \"size\": 1.5}"));
        assertEquals(
                "lun.resize: params.id: target " + IQN + " has no LUN 4", refusal("{\"id\": 4, \"size\": \"1G\"}"));
        assertEquals(
                "lun.resize: params.id (the LUN number) is required", refusal("{\"id\": \"0\", \"size\": \"1G\"}"));
    }
}
