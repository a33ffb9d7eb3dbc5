package io.numaiscsi.fiotests.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything that happened to the soak's LUNs and daemons, in order: fio rounds, chaos events, restarts. Each is kept
 * for the verdict and appended at once to its CSV ({@code rounds.csv}, {@code chaos.csv}, {@code restarts.csv}), so a
 * run that dies leaves its history.
 */
final class SoakRecorder {
    /** A failed round that ends this close to a restart of its daemon, or overlaps one, is explained by it. */
    static final Duration RESTART_MARGIN = Duration.ofSeconds(30);

    record Round(SoakLun lun, FioRound.Result result) {}

    record Chaos(String kind, String daemon, Instant start, Instant end, boolean ok, String detail) {}

    record Restart(String daemon, boolean kill9, Instant start, Instant end, int exitCode) {}

    private final Instant t0;
    private final Path rounds;
    private final Path chaos;
    private final Path restarts;
    private final List<Round> roundList = new ArrayList<>();
    private final List<Chaos> chaosList = new ArrayList<>();
    private final List<Restart> restartList = new ArrayList<>();

    SoakRecorder(Path out, Instant t0) throws IOException {
        this.t0 = t0;
        this.rounds = out.resolve("rounds.csv");
        this.chaos = out.resolve("chaos.csv");
        this.restarts = out.resolve("restarts.csv");
        Files.writeString(rounds, "start_s,end_s,lun,type,job,outcome,bytes_written,bytes_read,detail\n");
        Files.writeString(chaos, "start_s,end_s,kind,daemon,ok,detail\n");
        Files.writeString(restarts, "start_s,end_s,daemon,how,exit_code\n");
    }

    synchronized void round(SoakLun lun, FioRound.Result r) {
        roundList.add(new Round(lun, r));
        append(
                rounds,
                String.join(
                        ",",
                        seconds(r.start()),
                        seconds(r.end()),
                        lun.label(),
                        r.job().type().name().toLowerCase(),
                        csv(r.job().describe()),
                        r.outcome().name().toLowerCase(),
                        Long.toString(r.bytesWritten()),
                        Long.toString(r.bytesRead()),
                        csv(r.detail())));
    }

    synchronized void chaos(Chaos c) {
        chaosList.add(c);
        append(
                chaos,
                String.join(
                        ",",
                        seconds(c.start()),
                        seconds(c.end()),
                        c.kind(),
                        c.daemon(),
                        Boolean.toString(c.ok()),
                        csv(c.detail())));
    }

    synchronized void restart(Restart r) {
        restartList.add(r);
        append(
                restarts,
                String.join(
                        ",",
                        seconds(r.start()),
                        seconds(r.end()),
                        r.daemon(),
                        r.kill9() ? "SIGKILL" : "SIGTERM",
                        Integer.toString(r.exitCode())));
    }

    synchronized List<Round> rounds() {
        return List.copyOf(roundList);
    }

    synchronized List<Chaos> chaosEvents() {
        return List.copyOf(chaosList);
    }

    synchronized List<Restart> restarts() {
        return List.copyOf(restartList);
    }

    Instant t0() {
        return t0;
    }

    /**
     * Whether a failed round has a cause the harness made: it was killed by the harness (the chaos event, or a round
     * stopped before a restart) or it ran while its daemon restarted. Data that does not match is never explained.
     */
    synchronized boolean explained(Round round) {
        FioRound.Result r = round.result();
        return switch (r.outcome()) {
            case OK, KILLED -> true;
            case VERIFY_ERROR -> false;
            case IO_ERROR, TIMEOUT ->
                restartList.stream()
                        .anyMatch(s -> s.daemon().equals(round.lun().daemon())
                                && !r.end().isBefore(s.start())
                                && !r.start().isAfter(s.end().plus(RESTART_MARGIN)));
        };
    }

    String seconds(Instant at) {
        return String.format("%.1f", Duration.between(t0, at).toMillis() / 1000.0);
    }

    static String csv(String s) {
        return "\"" + s.replace("\"", "'").replace("\n", " ") + "\"";
    }

    private static void append(Path file, String line) {
        try {
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
