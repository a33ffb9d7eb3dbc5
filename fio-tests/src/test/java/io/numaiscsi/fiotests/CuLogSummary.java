package io.numaiscsi.fiotests;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-suite counts of a verbose {@code iscsi-test-cu} log.
 *
 * <p>libiscsi reports a test that skipped itself ("[SKIPPED] ... not implemented") as a CUnit
 * pass, so a test is SKIPPED when its text before the verdict holds "[SKIPPED]"; skips are never
 * counted as passes. The verdict is CUnit's bare "passed"/"FAILED" token; libiscsi's own
 * "[FAILED] ..." messages are bracketed and are only the reason. stdout and stderr interleave,
 * so text after a verdict on the same line belongs to the next test's setup and is ignored.
 * A test with no verdict before the next test, suite or end of log is NO_VERDICT (the tool died
 * or hung).
 */
final class CuLogSummary {

    enum Verdict {
        PASSED,
        FAILED,
        SKIPPED,
        NO_VERDICT
    }

    record TestResult(String suite, String test, Verdict verdict, String reason) {
        @Override
        public String toString() {
            return verdict + " " + suite + "." + test + (reason.isEmpty() ? "" : ": " + reason);
        }
    }

    private static final Pattern SUITE = Pattern.compile("^Suite: (\\S+)");
    private static final Pattern TEST = Pattern.compile("^\\s+Test: (\\S+) \\.\\.\\.(.*)$");
    private static final Pattern VERDICT = Pattern.compile("(?<!\\[)\\b(passed|FAILED)\\b(?!\\])");
    private static final Pattern CUNIT_ASSERT = Pattern.compile("^\\s+\\d+\\. (\\S+:\\d+.*)$");
    private static final Pattern CUNIT_TESTS = Pattern.compile("^\\s+tests\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)");

    private final List<TestResult> results;
    /** CUnit's own "tests Total Ran Passed Failed" line, or null when the log has none. */
    private final int[] cunitTests;

    private CuLogSummary(List<TestResult> results, int[] cunitTests) {
        this.results = List.copyOf(results);
        this.cunitTests = cunitTests;
    }

    static CuLogSummary parse(List<String> lines) {
        List<TestResult> results = new ArrayList<>();
        int[] cunitTests = null;
        String suite = "?";
        String test = null;
        boolean skipped = false;
        String reason = "";
        for (String line : lines) {
            Matcher m = SUITE.matcher(line);
            if (m.find()) {
                if (test != null) {
                    results.add(new TestResult(suite, test, Verdict.NO_VERDICT, reason));
                    test = null;
                }
                suite = m.group(1);
                continue;
            }
            m = CUNIT_TESTS.matcher(line);
            if (m.find()) {
                cunitTests = new int[] {
                    Integer.parseInt(m.group(1)),
                    Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)),
                    Integer.parseInt(m.group(4))
                };
                continue;
            }
            String rest;
            m = TEST.matcher(line);
            if (m.matches()) {
                if (test != null) {
                    results.add(new TestResult(suite, test, Verdict.NO_VERDICT, reason));
                }
                test = m.group(1);
                skipped = false;
                reason = "";
                rest = m.group(2);
            } else if (test != null) {
                rest = line;
            } else {
                m = CUNIT_ASSERT.matcher(line);
                int last = results.size() - 1;
                if (m.matches()
                        && last >= 0
                        && results.get(last).verdict() == Verdict.FAILED
                        && results.get(last).reason().isEmpty()) {
                    TestResult r = results.get(last);
                    results.set(
                            last,
                            new TestResult(
                                    r.suite(), r.test(), r.verdict(), m.group(1).trim()));
                }
                continue;
            }
            Matcher v = VERDICT.matcher(rest);
            boolean hasVerdict = v.find();
            String body = hasVerdict ? rest.substring(0, v.start()) : rest;
            if (body.contains("[SKIPPED]")) {
                skipped = true;
            }
            if (reason.isEmpty() && (body.contains("[SKIPPED]") || body.contains("[FAILED]"))) {
                reason = body.strip();
            }
            if (hasVerdict) {
                Verdict verdict =
                        v.group(1).equals("FAILED") ? Verdict.FAILED : skipped ? Verdict.SKIPPED : Verdict.PASSED;
                results.add(new TestResult(suite, test, verdict, reason));
                test = null;
            }
        }
        if (test != null) {
            results.add(new TestResult(suite, test, Verdict.NO_VERDICT, reason));
        }
        return new CuLogSummary(results, cunitTests);
    }

    List<TestResult> results() {
        return results;
    }

    int count(Verdict verdict) {
        int n = 0;
        for (TestResult r : results) {
            if (r.verdict() == verdict) {
                n++;
            }
        }
        return n;
    }

    /** Tests that FAILED or never reached a verdict. */
    List<TestResult> failures() {
        List<TestResult> out = new ArrayList<>();
        for (TestResult r : results) {
            if (r.verdict() == Verdict.FAILED || r.verdict() == Verdict.NO_VERDICT) {
                out.add(r);
            }
        }
        return out;
    }

    /** CUnit's "tests" summary line as {total, ran, passed, failed}; null if the log has none. */
    int[] cunitTests() {
        return cunitTests == null ? null : cunitTests.clone();
    }

    /** Per-suite table, then every failed, no-verdict and skipped test with its reason. */
    String report() {
        Map<String, int[]> perSuite = new LinkedHashMap<>();
        for (TestResult r : results) {
            perSuite.computeIfAbsent(r.suite(), k -> new int[4])[r.verdict().ordinal()]++;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-28s %6s %6s %7s %10s%n", "suite", "passed", "FAILED", "SKIPPED", "no-verdict"));
        int[] total = new int[4];
        for (Map.Entry<String, int[]> e : perSuite.entrySet()) {
            int[] c = e.getValue();
            sb.append(String.format("%-28s %6d %6d %7d %10d%n", e.getKey(), c[0], c[1], c[2], c[3]));
            for (int i = 0; i < 4; i++) {
                total[i] += c[i];
            }
        }
        sb.append(String.format(
                "%-28s %6d %6d %7d %10d   (tests=%d, suites=%d)%n",
                "TOTAL", total[0], total[1], total[2], total[3], results.size(), perSuite.size()));
        if (cunitTests != null) {
            sb.append(String.format(
                    "CUnit: tests total=%d ran=%d passed=%d failed=%d%n",
                    cunitTests[0], cunitTests[1], cunitTests[2], cunitTests[3]));
        }
        for (Verdict kind : new Verdict[] {Verdict.FAILED, Verdict.NO_VERDICT, Verdict.SKIPPED}) {
            for (TestResult r : results) {
                if (r.verdict() == kind) {
                    sb.append(r).append('\n');
                }
            }
        }
        return sb.toString();
    }
}
