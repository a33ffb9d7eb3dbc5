package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void burstPerIntervalThenOneSummary() {
        Logger logger = (Logger) LoggerFactory.getLogger("RateLimitedLogTest.burst");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        AtomicLong clock = new AtomicLong(100 * SECOND);
        RateLimitedLog limited = new RateLimitedLog(logger, "failed logins", 10 * SECOND, 3, clock::get);

        int permitted = 0;
        for (int i = 0; i < 1000; i++) {
            if (limited.permit()) {
                permitted++;
            }
        }
        assertEquals(3, permitted);
        assertEquals(997, limited.pending());
        assertTrue(lines.list.isEmpty(), "no summary before the interval ends");

        clock.addAndGet(10 * SECOND);
        assertTrue(limited.permit(), "a new interval permits again");
        assertEquals(1, lines.list.size());
        assertEquals(
                "997 more failed logins in the last 10 s were not logged one by one",
                lines.list.get(0).getFormattedMessage());
        assertEquals(0, limited.pending());
    }

    @Test
    void quietIntervalsWriteNoSummary() {
        Logger logger = (Logger) LoggerFactory.getLogger("RateLimitedLogTest.quiet");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        AtomicLong clock = new AtomicLong();
        RateLimitedLog limited = new RateLimitedLog(logger, "rejected PDUs", SECOND, 2, clock::get);
        assertTrue(limited.permit());
        assertTrue(limited.permit());
        clock.addAndGet(5 * SECOND);
        assertTrue(limited.permit());
        assertTrue(limited.permit());
        assertFalse(limited.permit());
        assertTrue(lines.list.isEmpty());
    }
}
