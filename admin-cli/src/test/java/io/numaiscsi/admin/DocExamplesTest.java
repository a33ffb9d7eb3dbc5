package io.numaiscsi.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Examples that cannot rot: every YAML block of the README, docs/*.md and config/README.md loads as a configuration
 * file (the loader {@code --check-config} runs), and every {@code numa-iscsi-admin} command line shown there parses
 * with the CLI (the subcommand exists, its options exist, required ones are given, values convert).
 */
class DocExamplesTest {

    /** The pages a user reads: the README, every page of docs/ and the configuration reference. */
    static List<Path> pages() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve(".git"))) {
            root = root.getParent();
        }
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("config/README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    @Test
    void everyYamlExampleInTheDocsLoadsAsAConfigurationFile() throws IOException {
        List<String> problems = new ArrayList<>();
        int blocks = 0;
        for (Path page : pages()) {
            for (DocExamples.YamlBlock block : DocExamples.of(page).yaml()) {
                blocks++;
                String problem = DocExamples.problem(block);
                if (problem != null) {
                    problems.add(problem);
                }
            }
        }
        assertEquals(List.of(), problems, "YAML examples the daemon would refuse");
        assertTrue(blocks >= 8, "found only " + blocks + " YAML blocks in " + pages());
    }

    @Test
    void everyAdminCommandInTheDocsParsesWithTheCli() throws IOException {
        List<String> problems = new ArrayList<>();
        int commands = 0;
        for (Path page : pages()) {
            for (DocExamples.AdminCommand command : DocExamples.of(page).commands()) {
                commands++;
                String problem = DocExamples.problem(command);
                if (problem != null) {
                    problems.add(problem);
                }
            }
        }
        assertEquals(List.of(), problems, "numa-iscsi-admin commands the CLI refuses");
        assertTrue(commands >= 30, "found only " + commands + " numa-iscsi-admin commands in " + pages());
    }

    private static final String SAMPLE = """
            # A page with mistakes

            ```yaml
            portals: [127.0.0.1:3260]
            targets:
              - name: iqn.2026-11.io.numaiscsi:disk0
                luns: [{id: 0, backing: file, path: a.img, size: 12X}]
            ```

            <!-- fragment -->
            ```yaml
            cache: {mode: numa, write-policy: write-back}
            ```

            ```yaml
            cache: {mode: numa, write-policy: write-back}
            ```

            <!-- fragment -->
            ```yaml
            cache: {mode: numa, write-polcy: write-back}
            ```

            ```
            $ sudo numa-iscsi-admin lun-add iqn.2026-11.io.numaiscsi:disk0 --id 1 --size 1G   # fine
            numa-iscsi-admin lun-add iqn.2026-11.io.numaiscsi:disk0 --size 1G        # --id missing
            bin/numa-iscsi-admin lun-ad iqn.2026-11.io.numaiscsi:disk0 --id 1 \\
                --size 1G
            numa-iscsi-admin status; numa-iscsi-admin sessions --verbose
            journalctl -u numa-iscsi-target | grep 'numa-iscsi-admin ls'
            numa-iscsi-admin session-logout TSIH
            numa-iscsi-admin target-create iqn.2026-11.io.numaiscsi:db --lun id=0,ram
            source <(bin/numa-iscsi-admin generate-completion)
            numa-iscsi-admin chap-set --discovery --user disc --secret-file /nonexistent/disc.secret
            ```
            """;

    @Test
    void theExtractorFindsEveryExampleOfASamplePageAndTheirMistakes() {
        DocExamples page = DocExamples.of(SAMPLE, "sample.md");
        List<DocExamples.YamlBlock> yaml = page.yaml();
        assertEquals(4, yaml.size());
        assertEquals(4, yaml.get(0).line(), "the line after the fence");
        assertTrue(DocExamples.problem(yaml.get(0)).startsWith("sample.md:4:"), DocExamples.problem(yaml.get(0)));
        assertTrue(DocExamples.problem(yaml.get(0)).contains("size"), DocExamples.problem(yaml.get(0)));
        assertTrue(yaml.get(1).fragment());
        assertNull(DocExamples.problem(yaml.get(1)), "a marked fragment is checked inside a minimal file");
        assertNotNull(DocExamples.problem(yaml.get(2)), "the same block unmarked is a file without targets");
        assertTrue(DocExamples.problem(yaml.get(3)).contains("write-polcy"), "a fragment's mistakes are found");

        List<DocExamples.AdminCommand> commands = page.commands();
        assertEquals(
                List.of(
                        "lun-add",
                        "lun-add",
                        "lun-ad",
                        "status",
                        "sessions",
                        "session-logout",
                        "target-create",
                        "generate-completion",
                        "chap-set"),
                commands.stream().map(c -> c.args().get(0)).toList(),
                "the grep pattern is no command");
        assertNull(DocExamples.problem(commands.get(0)), "sudo, a prompt and a comment around a good command");
        assertTrue(DocExamples.problem(commands.get(1)).contains("--id"), DocExamples.problem(commands.get(1)));
        assertEquals(
                List.of("lun-ad", "iqn.2026-11.io.numaiscsi:disk0", "--id", "1", "--size", "1G"),
                commands.get(2).args(),
                "a continued line is one command");
        assertTrue(DocExamples.problem(commands.get(2)).contains("lun-ad"), DocExamples.problem(commands.get(2)));
        assertNull(DocExamples.problem(commands.get(3)));
        assertTrue(DocExamples.problem(commands.get(4)).contains("--verbose"), DocExamples.problem(commands.get(4)));
        assertTrue(DocExamples.problem(commands.get(5)).contains("TSIH"), "a placeholder is no number");
        assertTrue(DocExamples.problem(commands.get(6)).contains("KEY=VALUE"), DocExamples.problem(commands.get(6)));
        assertNull(DocExamples.problem(commands.get(7)));
        assertNull(DocExamples.problem(commands.get(8)), "a secret file the example names need not exist here");
    }
}
