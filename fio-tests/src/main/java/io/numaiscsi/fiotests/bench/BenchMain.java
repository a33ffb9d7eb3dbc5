package io.numaiscsi.fiotests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark driver behind {@code fio-tests/bench/run-bench.sh}: the script starts the targets and
 * measures the loopback ceiling, this runs the fio matrix and writes results.json, table.txt, table.md
 * and ratios.png into {@code --out}. {@code --report DIR} only re-renders an existing results.json.
 */
public final class BenchMain {
    private static final String USAGE = """
            usage: BenchMain --out DIR --target SPEC --target SPEC... [options]
                   BenchMain --report DIR
              --target name=N,portal=HOST:PORT,iqn=IQN,luns=L[+L],pid=PID   first = baseline, second = subject
              --matrix FILE        workloads, lines "name rw bs iodepth numjobs luns" (default fio-tests/bench/matrix.txt)
              --repeats N          runs per cell and target (default 3)
              --runtime S          seconds per run (default 20)
              --warmup S           discarded runs per target first, S seconds each: a sequential read of both LUNs
                                   (fills caches), then each workload of the matrix once (the JIT compiles every
                                   path the cells take; without it a target's first cells ran part interpreted)
                                   (default 5, 0 = none)
              --ceiling N=FILE     iperf3 -J client output measured with N parallel streams (repeatable)
              --fio PATH           fio with the libiscsi engine (default /opt/fio-libiscsi/bin/fio)
              --clk-tck N          USER_HZ of /proc/PID/stat (default 100)
              --lun-size S, --java-version S, --fio-version S, --tgtd-version S   recorded as given
            """;

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, List<String>> opts;
        try {
            opts = parseArgs(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\n" + USAGE);
            System.exit(2);
            return;
        }
        if (opts.containsKey("report")) {
            Path dir = Path.of(one(opts, "report", null));
            BenchReport r = BenchReport.read(dir.resolve("results.json")).recomputed();
            writeOutputs(r, dir);
            return;
        }
        Path out = Files.createDirectories(Path.of(one(opts, "out", null)));
        List<Target> targets = new ArrayList<>();
        for (String spec : opts.getOrDefault("target", List.of())) {
            targets.add(Target.parse(spec));
        }
        if (targets.size() < 2) {
            System.err.println("need at least two --target (baseline first)\n" + USAGE);
            System.exit(2);
        }
        List<Workload> workloads = Workload.readMatrix(Path.of(one(opts, "matrix", "fio-tests/bench/matrix.txt")));
        int repeats = Integer.parseInt(one(opts, "repeats", "3"));
        int runtime = Integer.parseInt(one(opts, "runtime", "20"));
        int warmup = Integer.parseInt(one(opts, "warmup", "5"));
        Map<Integer, Double> ceiling = new LinkedHashMap<>();
        for (String c : opts.getOrDefault("ceiling", List.of())) {
            int eq = c.indexOf('=');
            ceiling.put(
                    Integer.parseInt(c.substring(0, eq)),
                    Ceiling.parseIperf3(BenchReport.mapper()
                            .readTree(Path.of(c.substring(eq + 1)).toFile())));
        }
        MachineInfo machine = MachineInfo.probe(
                one(
                        opts,
                        "java-version",
                        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")),
                one(opts, "fio-version", "fio"),
                one(opts, "tgtd-version", "?"));

        BenchRun run = new BenchRun(
                Path.of(one(opts, "fio", "/opt/fio-libiscsi/bin/fio")),
                out,
                runtime,
                Integer.parseInt(one(opts, "clk-tck", "100")),
                System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(run::abort, "stop-fio"));
        if (warmup > 0) {
            run.warmUp(targets, Workload.parseLine("warmup read 512k 8 1 2"), warmup);
            for (Workload w : workloads) {
                run.warmUp(targets, w, warmup);
            }
        }
        List<Sample> samples = run.run(BenchRun.schedule(workloads, targets, repeats));
        List<String> names = targets.stream().map(Target::name).toList();
        BenchReport report = BenchReport.of(
                new BenchReport.Settings(
                        repeats,
                        runtime,
                        warmup,
                        one(opts, "lun-size", "?"),
                        "per cell: " + String.join(" ", names) + " x" + repeats
                                + ", each repeat starting with the next target"),
                machine,
                new Ceiling(ceiling),
                names,
                workloads,
                samples);
        writeOutputs(report, out);
    }

    private static void writeOutputs(BenchReport r, Path dir) throws IOException {
        r.write(dir.resolve("results.json"));
        String text = ReportTables.text(r);
        Files.writeString(dir.resolve("table.txt"), text);
        Files.writeString(dir.resolve("table.md"), ReportTables.markdown(r));
        RatioChart.writePng(r, dir.resolve("ratios.png"));
        System.out.println();
        System.out.print(text);
        System.out.println("results: " + dir.resolve("results.json") + ", table.md, ratios.png");
    }

    /** {@code --key value} pairs; every key may repeat. */
    static Map<String, List<String>> parseArgs(String[] args) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("bad argument: " + args[i]);
            }
            m.computeIfAbsent(args[i].substring(2), k -> new ArrayList<>()).add(args[++i]);
        }
        return m;
    }

    private static String one(Map<String, List<String>> opts, String key, String dflt) {
        List<String> v = opts.get(key);
        if (v == null || v.isEmpty()) {
            if (dflt == null) {
                throw new IllegalArgumentException("--" + key + " is required");
            }
            return dflt;
        }
        return v.get(v.size() - 1);
    }
}
