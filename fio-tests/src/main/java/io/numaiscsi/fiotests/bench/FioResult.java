package io.numaiscsi.fiotests.bench;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the benchmark keeps of one fio run (its {@code --output-format=json}): summed over every
 * job entry and both directions; completion latency percentiles of the busier direction, the
 * worst over job entries (there is one entry with {@code group_reporting}); {@code cores}: fio's own CPU
 * (user + system, summed over the jobs, in cores), so a run can show when the load generator is the limit.
 */
record FioResult(
        double iops,
        double bandwidthBytes,
        long totalIos,
        double p50Micros,
        double p99Micros,
        int error,
        double cores) {

    static final FioResult FAILED = new FioResult(Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, -1, Double.NaN);

    boolean ok() {
        return error == 0 && totalIos > 0;
    }

    static FioResult parse(JsonNode root) {
        JsonNode jobs = root.path("jobs");
        if (!jobs.isArray() || jobs.isEmpty()) {
            throw new IllegalArgumentException("fio JSON has no jobs");
        }
        double iops = 0;
        double bw = 0;
        long ios = 0;
        double p50 = Double.NaN;
        double p99 = Double.NaN;
        int error = 0;
        double cores = 0;
        for (JsonNode job : jobs) {
            cores += (job.path("usr_cpu").asDouble(0) + job.path("sys_cpu").asDouble(0)) / 100.0;
            JsonNode read = job.path("read");
            JsonNode write = job.path("write");
            for (JsonNode dir : new JsonNode[] {read, write}) {
                iops += dir.path("iops").asDouble(0);
                bw += dir.path("bw_bytes").asDouble(0);
                ios += dir.path("total_ios").asLong(0);
            }
            JsonNode busier =
                    write.path("io_bytes").asLong(0) > read.path("io_bytes").asLong(0) ? write : read;
            JsonNode pct = busier.path("clat_ns").path("percentile");
            p50 = worse(p50, micros(pct, "50.000000"));
            p99 = worse(p99, micros(pct, "99.000000"));
            if (error == 0) {
                error = job.path("error").asInt(0);
            }
        }
        return new FioResult(iops, bw, ios, p50, p99, error, cores);
    }

    private static double micros(JsonNode percentiles, String key) {
        JsonNode v = percentiles.get(key);
        return v == null ? Double.NaN : v.asDouble() / 1000.0;
    }

    private static double worse(double a, double b) {
        if (Double.isNaN(a)) {
            return b;
        }
        return Double.isNaN(b) ? a : Math.max(a, b);
    }
}
