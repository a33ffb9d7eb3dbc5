package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MachineInfoTest {

    @Test
    void cpuModelFromCpuinfo() {
        assertEquals(
                "AMD EPYC 7763 64-Core Processor",
                MachineInfo.cpuModel(List.of(
                        "processor\t: 0",
                        "vendor_id\t: AuthenticAMD",
                        "model\t\t: 1",
                        "model name\t: AMD EPYC 7763 64-Core Processor",
                        "model name\t: other")));
        assertEquals(
                "Raspberry Pi 4 Model B Rev 1.4",
                MachineInfo.cpuModel(List.of("CPU part\t: 0xd08", "Model\t\t: Raspberry Pi 4 Model B Rev 1.4")));
        assertEquals("unknown", MachineInfo.cpuModel(List.of("processor : 0")));
    }

    @Test
    void probeFillsTheLine() throws Exception {
        MachineInfo m = MachineInfo.probe("openjdk 17", "fio-3.33", "1.0.85");
        assertTrue(m.nproc() >= 1);
        assertTrue(m.oneLine().contains("kernel " + m.kernel()) && m.oneLine().contains("openjdk 17"), m.oneLine());
    }
}
