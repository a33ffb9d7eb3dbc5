package io.numaiscsi.fiotests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class FioResultTest {
    /** Trimmed fio 3.33 --output-format=json of a group_reported random read (same field names and nesting). */
    static final String RANDREAD = """
            {
              "fio version" : "fio-3.33",
              "jobs" : [ {
                  "jobname" : "lun0", "groupid" : 0, "error" : 0,
                  "read" : { "io_bytes" : 1638400000, "bw_bytes" : 81920000, "iops" : 20000.5, "total_ios" : 400000,
                    "clat_ns" : { "min" : 9000, "max" : 9000000, "mean" : 1500000.0,
                      "percentile" : { "1.000000" : 700000, "50.000000" : 1400832, "99.000000" : 2113536, "99.900000" : 4000000 } } },
                  "write" : { "io_bytes" : 0, "bw_bytes" : 0, "iops" : 0.0, "total_ios" : 0,
                    "clat_ns" : { "min" : 0, "max" : 0, "mean" : 0.0 } },
                  "usr_cpu" : 12.5, "sys_cpu" : 30.1
              } ]
            }
            """;

    static FioResult parse(String json) throws Exception {
        return FioResult.parse(new ObjectMapper().readTree(json));
    }

    @Test
    void readJob() throws Exception {
        FioResult r = parse(RANDREAD);
        assertEquals(20000.5, r.iops());
        assertEquals(81920000, r.bandwidthBytes());
        assertEquals(400000, r.totalIos());
        assertEquals(1400.832, r.p50Micros(), 1e-9);
        assertEquals(2113.536, r.p99Micros(), 1e-9);
        assertTrue(r.ok());
    }

    @Test
    void writeJobTakesWriteLatencies() throws Exception {
        String json = """
                {"jobs":[{"error":0,
                  "read":{"io_bytes":0,"bw_bytes":0,"iops":0,"total_ios":0,"clat_ns":{"mean":0.0}},
                  "write":{"io_bytes":4096000,"bw_bytes":409600,"iops":100.0,"total_ios":1000,
                    "clat_ns":{"percentile":{"50.000000":5000,"99.000000":90000}}}}]}""";
        FioResult r = parse(json);
        assertEquals(100.0, r.iops());
        assertEquals(1000, r.totalIos());
        assertEquals(5.0, r.p50Micros(), 1e-9);
        assertEquals(90.0, r.p99Micros(), 1e-9);
    }

    @Test
    void severalJobEntriesAreSummedWithTheWorstLatency() throws Exception {
        String job = """
                {"error":%d,"read":{"io_bytes":100,"bw_bytes":%d,"iops":%d,"total_ios":%d,
                 "clat_ns":{"percentile":{"50.000000":%d,"99.000000":%d}}},"write":{"io_bytes":0}}""";
        String json = "{\"jobs\":[" + job.formatted(0, 1000, 10, 100, 2000, 8000) + ","
                + job.formatted(0, 3000, 30, 300, 1000, 9000) + "]}";
        FioResult r = parse(json);
        assertEquals(40.0, r.iops());
        assertEquals(4000.0, r.bandwidthBytes());
        assertEquals(400, r.totalIos());
        assertEquals(2.0, r.p50Micros(), 1e-9);
        assertEquals(9.0, r.p99Micros(), 1e-9);
    }

    @Test
    void jobErrorOrNoIosIsNotOk() throws Exception {
        assertFalse(parse(RANDREAD.replace("\"error\" : 0", "\"error\" : 5")).ok());
        assertFalse(parse(RANDREAD.replace("\"total_ios\" : 400000", "\"total_ios\" : 0"))
                .ok());
        assertFalse(FioResult.FAILED.ok());
        assertThrows(IllegalArgumentException.class, () -> parse("{\"jobs\":[]}"));
    }

    @Test
    void jsonBodySkipsWarningsBeforeTheObject() {
        assertEquals("{\"a\":1}", BenchRun.jsonBody("fio: some warning\n{\"a\":1}"));
        assertEquals("{\"a\":1}", BenchRun.jsonBody("{\"a\":1}"));
    }
}
