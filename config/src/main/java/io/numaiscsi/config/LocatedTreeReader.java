package io.numaiscsi.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Streams a YAML document into a {@link Node} tree that keeps every line number
 * ({@code readTree} would lose them). Duplicate keys, aliases and extra documents are rejected here.
 */
final class LocatedTreeReader {

    private static final YAMLFactory FACTORY = new YAMLFactory();

    private final String source;
    /** Key path of the value being read, so syntax errors can name where they happened. */
    private String path = "";
    /** Line and key path of the last key or scalar read: a syntax error on that line belongs to that key. */
    private int lastLine;

    private String lastPath = "";

    private LocatedTreeReader(String source) {
        this.source = source;
    }

    /** An empty document reads as an empty mapping. */
    static Node read(String yamlText, String source) throws ConfigException {
        return new LocatedTreeReader(source).readDocument(yamlText);
    }

    private Node readDocument(String text) throws ConfigException {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return new Node.Mapping(List.of(), 1, 1);
            }
            Node root = readValue(p, "");
            if (p.nextToken() != null) {
                throw new ConfigException(
                        source, line(p), "", "only one YAML document is allowed (remove the second '---')");
            }
            return root;
        } catch (JsonProcessingException e) {
            throw syntaxError(e);
        } catch (IOException e) {
            throw new UncheckedIOException("reading from a string cannot fail", e);
        }
    }

    /** Reads the value at the parser's current token. */
    private Node readValue(JsonParser p, String at) throws IOException, ConfigException {
        path = at;
        int line = line(p);
        int column = column(p);
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            List<Node.Entry> entries = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                int keyLine = line(p);
                int keyColumn = column(p);
                String keyPath = at.isEmpty() ? key : at + "." + key;
                for (Node.Entry e : entries) {
                    if (e.key().equals(key)) {
                        throw new ConfigException(
                                source, keyLine, keyPath, "duplicate key (first written at line " + e.line() + ")");
                    }
                }
                path = keyPath;
                lastLine = keyLine;
                lastPath = keyPath;
                p.nextToken();
                entries.add(new Node.Entry(key, keyLine, keyColumn, readValue(p, keyPath)));
                path = at;
            }
            return new Node.Mapping(List.copyOf(entries), line, column);
        }
        if (t == JsonToken.START_ARRAY) {
            List<Node> items = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                items.add(readValue(p, at + "[" + items.size() + "]"));
                path = at;
            }
            return new Node.Sequence(List.copyOf(items), line, column);
        }
        if (p instanceof YAMLParser y && y.isCurrentAlias()) {
            throw new ConfigException(
                    source, line, at, "YAML aliases (*" + p.getText() + ") are not supported; write the value out");
        }
        lastLine = line;
        lastPath = at;
        return new Node.Scalar(p.getText(), t, line, column);
    }

    private ConfigException syntaxError(JsonProcessingException e) {
        int line;
        int column;
        String problem;
        if (e.getCause() instanceof MarkedYAMLException m && m.getProblemMark() != null) {
            Mark mark = m.getProblemMark();
            line = mark.getLine() + 1;
            column = mark.getColumn() + 1;
            problem = m.getProblem();
            if (m.getContext() != null) {
                problem = problem + " (" + m.getContext() + ")";
            }
        } else {
            JsonLocation loc = e.getLocation();
            line = loc == null ? 0 : loc.getLineNr();
            column = loc == null ? 0 : loc.getColumnNr();
            problem = e.getOriginalMessage();
        }
        String where = line == lastLine ? lastPath : path;
        problem = problem.replace("\\t(TAB)", "a tab").replace('\n', ' ').trim();
        if (problem.contains("expected <block end>")) {
            problem = problem + "; check the indentation";
        }
        if (where.startsWith("portals") && problem.contains("found ':'")) {
            problem = problem + "; quote IPv6 portals: \"[::1]:3260\"";
        }
        return new ConfigException(
                source, line, column, where, "YAML syntax error at column " + column + ": " + problem, e);
    }

    private static int line(JsonParser p) {
        return p.currentTokenLocation().getLineNr();
    }

    private static int column(JsonParser p) {
        return p.currentTokenLocation().getColumnNr();
    }
}
