package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class CommandPoolTest {

    @Test
    void makesCommandsAsTheQueueNeedsThemAndNoMoreThanItsCapacity() {
        CommandPool pool = new CommandPool(() -> new IscsiCommand(null, 1), 3);
        assertEquals(0, pool.made(), "nothing made before the first command");
        IscsiCommand a = pool.take();
        assertNotNull(a);
        pool.give(a);
        assertSame(a, pool.take(), "a returned command is reused before a new one is made");
        assertEquals(1, pool.made());
        IscsiCommand b = pool.take();
        IscsiCommand c = pool.take();
        assertNotNull(b);
        assertNotNull(c);
        assertNull(pool.take(), "full: the caller answers TASK SET FULL");
        assertEquals(3, pool.made());
        pool.give(b);
        assertSame(b, pool.take());
        assertEquals(3, pool.made());
    }
}
