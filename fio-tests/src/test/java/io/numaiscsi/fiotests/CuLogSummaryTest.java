package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.fiotests.CuLogSummary.TestResult;
import io.numaiscsi.fiotests.CuLogSummary.Verdict;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CuLogSummaryTest {

    /** Log fragments as iscsi-test-cu 1.19 prints them (-v), and the verdict of their first test. */
    static Stream<Arguments> fragments() {
        return Stream.of(
                Arguments.of(
                        "plain pass", List.of("Suite: GetLBAStatus", "  Test: Simple ...passed"), Verdict.PASSED, ""),
                Arguments.of(
                        "skip is not a pass",
                        List.of(
                                "Suite: CompareAndWrite",
                                "  Test: Simple ...    [SKIPPED] COMPAREANDWRITE is not implemented.",
                                "    [SKIPPED] COMPAREANDWRITE is not implemented.",
                                "passed"),
                        Verdict.SKIPPED,
                        "[SKIPPED] COMPAREANDWRITE is not implemented."),
                Arguments.of(
                        "failure with libiscsi reason",
                        List.of(
                                "Suite: GetLBAStatus",
                                "  Test: BeyondEol ...    [FAILED] GET_LBA_STATUS successful but should have failed",
                                "FAILED",
                                "    1. test_get_lba_status_beyond_eol.c:38  - CU_ASSERT_EQUAL(_r,0)"),
                        Verdict.FAILED,
                        "[FAILED] GET_LBA_STATUS successful but should have failed"),
                Arguments.of(
                        "failure with only the CUnit assertion",
                        List.of(
                                "Suite: iSCSIdatasn",
                                "  Test: iSCSIDataSnInvalid ...FAILED",
                                "    1. test_iscsi_datasn_invalid.c:98  - CU_ASSERT_NOT_EQUAL(ret,0)"),
                        Verdict.FAILED,
                        "test_iscsi_datasn_invalid.c:98  - CU_ASSERT_NOT_EQUAL(ret,0)"),
                Arguments.of(
                        "text after the verdict belongs to the next test",
                        List.of(
                                "Suite: ModeSense6",
                                "  Test: Residuals ...passed    [FAILED] PRIN command: failed with sense.",
                                "  Test: Next ...passed"),
                        Verdict.PASSED,
                        ""),
                Arguments.of(
                        "bracketed [FAILED] alone is not a verdict",
                        List.of(
                                "Suite: Unmap",
                                "  Test: UnmapVPD ...    [FAILED] WRITESAME10 command failed with status 2",
                                "passed"),
                        Verdict.PASSED,
                        "[FAILED] WRITESAME10 command failed with status 2"),
                Arguments.of(
                        "tool died inside a test",
                        List.of("Suite: iSCSITMF", "  Test: LUNReset ...", "Suite: MultipathIO"),
                        Verdict.NO_VERDICT,
                        ""),
                Arguments.of(
                        "log ends inside a test",
                        List.of("Suite: iSCSITMF", "  Test: LUNReset ...    [SKIPPED] not implemented"),
                        Verdict.NO_VERDICT,
                        "[SKIPPED] not implemented"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fragments")
    void firstTestVerdict(String name, List<String> log, Verdict verdict, String reason) {
        TestResult first = CuLogSummary.parse(log).results().get(0);
        assertEquals(verdict, first.verdict(), name);
        assertEquals(reason, first.reason(), name);
    }

    @Test
    void countsPerVerdictAndCunitSummary() {
        CuLogSummary s = CuLogSummary.parse(List.of(
                "Suite: A",
                "  Test: One ...passed",
                "  Test: Two ...    [SKIPPED] nope",
                "passed",
                "Suite: B",
                "  Test: Three ...FAILED",
                "    1. x.c:1  - CU_ASSERT(0)",
                "  Test: Four ...",
                "Suite: C",
                "  Test: Five ...passed",
                "Run Summary:    Type  Total    Ran Passed Failed Inactive",
                "              suites      3      3    n/a      0        0",
                "               tests      5      4      3      1        0"));
        assertEquals(5, s.results().size());
        assertEquals(2, s.count(Verdict.PASSED));
        assertEquals(1, s.count(Verdict.SKIPPED));
        assertEquals(1, s.count(Verdict.FAILED));
        assertEquals(1, s.count(Verdict.NO_VERDICT));
        assertEquals(
                List.of("B.Three", "B.Four"),
                s.failures().stream().map(r -> r.suite() + "." + r.test()).toList());
        assertArrayEquals(new int[] {5, 4, 3, 1}, s.cunitTests());
        String report = s.report();
        assertTrue(
                report.contains("TOTAL                             2      1       1          1   (tests=5, suites=3)"),
                report);
        assertTrue(report.contains("FAILED B.Three: x.c:1  - CU_ASSERT(0)"), report);
        assertTrue(report.contains("SKIPPED A.Two: [SKIPPED] nope"), report);
    }

    @Test
    void noCunitSummaryWhenToolDied() {
        assertNull(CuLogSummary.parse(List.of("Suite: A", "  Test: One ...")).cunitTests());
    }
}
