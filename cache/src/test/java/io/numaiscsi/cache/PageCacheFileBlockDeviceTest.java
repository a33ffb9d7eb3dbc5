package io.numaiscsi.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.Unpooled;
import io.numaiscsi.cache.Support.Done;
import io.numaiscsi.scsi.IoStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageCacheFileBlockDeviceTest {
  @TempDir Path dir;
  private final ExecutorService io = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    io.shutdownNow();
  }

  @Test
  void readWriteFlushUnmap() throws IOException {
    Path f = dir.resolve("lun.img");
    try (PageCacheFileBlockDevice d = PageCacheFileBlockDevice.open(f, 1 << 20, 512, io)) {
      assertEquals(2048, d.blockCount());
      assertEquals(1 << 20, Files.size(f));
      byte[] data = Support.pattern(8192, 2);
      assertEquals(IoStatus.OK, Support.write(d, 4096, data, true));
      assertArrayEquals(data, Support.read(d, 4096, 8192));
      assertEquals(IoStatus.OK, Support.flush(d));
      assertEquals(IoStatus.OK, Support.unmap(d, 4096, 4096));
      byte[] expected = data.clone();
      java.util.Arrays.fill(expected, 0, 4096, (byte) 0);
      assertArrayEquals(expected, Support.read(d, 4096, 8192));
      Done bad = new Done();
      d.read(1 << 20, 512, Unpooled.buffer(512), bad);
      assertEquals(IoStatus.OUT_OF_RANGE, bad.await());
    }
    byte[] onDisk = Files.readAllBytes(f);
    assertEquals(Support.pattern(8192, 2)[5000], onDisk[4096 + 5000]);
  }

  @Test
  void existingFileMustHaveTheConfiguredSize() throws IOException {
    Path f = dir.resolve("small.img");
    Files.write(f, new byte[4096]);
    assertThrows(IOException.class, () -> PageCacheFileBlockDevice.open(f, 8192, 512, io));
  }
}
