package io.numaiscsi.daemon.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaiscsi.daemon.registry.ModePageStores;
import io.numaiscsi.scsi.ModePageStore;
import io.numaiscsi.scsi.SavedModePages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mode parameters initiators saved (MODE SELECT, SP=1), one JSON file per LUN:
 * {@code DATA_DIR/mode-pages/<target name>/lun-<n>.json}, replaced atomically ({@link DurableFiles}) by one thread,
 * in the order the LUNs ask:
 * <pre>{"format": 1, "target": "iqn...", "lun": 0, "write-cache": false, "descriptor-sense": false,
 *  "software-write-protect": false}</pre>
 */
public final class ModePageFiles implements ModePageStores, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ModePageFiles.class);
    static final String DIRECTORY = "mode-pages";
    private static final int FORMAT = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path root;
    private final StateFileWriter io = new StateFileWriter("mode-page-store");

    public ModePageFiles(Path dataDir) {
        this.root = dataDir.resolve(DIRECTORY);
    }

    Path fileOf(String target, int lun) {
        return DurableFiles.lunFile(root, target, lun);
    }

    @Override
    public ModePageStore open(String target, int lun) {
        return new LunFile(fileOf(target, lun), target, lun);
    }

    @Override
    public void discard(String target, int lun) throws IOException {
        Path file = fileOf(target, lun);
        io.runAndWait(() -> DurableFiles.remove(file), file);
    }

    static byte[] encode(String target, int lun, SavedModePages pages) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("format", FORMAT);
        root.put("target", target);
        root.put("lun", lun);
        root.put("write-cache", pages.writeCache());
        root.put("descriptor-sense", pages.descriptorSense());
        root.put("software-write-protect", pages.softwareWriteProtect());
        try {
            return MAPPER.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @throws IllegalArgumentException what is wrong with {@code text} */
    static SavedModePages decode(byte[] text) {
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "not JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
        }
        if (root == null || !root.isObject() || root.path("format").asInt() != FORMAT) {
            throw new IllegalArgumentException("not a format " + FORMAT + " mode page file");
        }
        return new SavedModePages(
                flag(root, "write-cache"), flag(root, "descriptor-sense"), flag(root, "software-write-protect"));
    }

    private static boolean flag(JsonNode root, String field) {
        JsonNode v = root.get(field);
        if (v == null || !v.isBoolean()) {
            throw new IllegalArgumentException("\"" + field + "\" is missing or not true/false");
        }
        return v.booleanValue();
    }

    /** Finishes the writes asked for so far (their MODE SELECTs are waiting) and stops the thread. */
    @Override
    public void close() {
        io.close();
    }

    private final class LunFile implements ModePageStore {
        private final Path file;
        private final String target;
        private final int lun;

        LunFile(Path file, String target, int lun) {
            this.file = file;
            this.target = target;
            this.lun = lun;
        }

        @Override
        public boolean persists() {
            return true;
        }

        @Override
        public SavedModePages load() throws IOException {
            byte[] text;
            try {
                text = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                return null;
            }
            try {
                SavedModePages pages = decode(text);
                LOG.info("target {} LUN {}: saved mode parameters from {}: {}", target, lun, file, pages);
                return pages;
            } catch (IllegalArgumentException e) {
                throw new IOException(
                        "saved mode parameters file " + file + " is corrupt: " + e.getMessage()
                                + "; repair it, or remove it to start target " + target + " LUN " + lun
                                + " with the defaults",
                        e);
            }
        }

        @Override
        public void save(SavedModePages pages, Consumer<IOException> done) {
            try {
                io.execute(() -> {
                    try {
                        DurableFiles.replace(file, encode(target, lun, pages));
                        done.accept(null);
                    } catch (IOException e) {
                        done.accept(e);
                    }
                });
            } catch (RejectedExecutionException e) {
                done.accept(new IOException("the mode page store is closed; " + file + " not written", e));
            }
        }

        @Override
        public String toString() {
            return "file " + file;
        }
    }
}
