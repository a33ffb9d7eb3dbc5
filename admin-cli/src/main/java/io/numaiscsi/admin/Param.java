package io.numaiscsi.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * One option or positional parameter of a subcommand, and where its value goes in the request's params: a path of
 * keys, {@code "lun/size"} being {@code params.lun.size}. A parameter not given leaves its key out, so the daemon
 * applies the config file's default. Its {@link Kind} says what the value becomes.
 */
final class Param implements Member {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    enum Kind {
        /** The text as given (numbers too: the config rules read sizes, durations and numbers from text). */
        TEXT(String.class),
        /** A whole number. */
        NUMBER(Integer.class),
        /** {@code true} when given. */
        FLAG(boolean.class),
        /** {@code null} when given: the daemon clears that setting. */
        CLEAR(boolean.class),
        /** Repeatable: the list of the texts. */
        LIST(List.class),
        /** Repeatable {@code KEY=VALUE,...}: a list of objects (a config entry written on the command line). */
        ENTRIES(List.class),
        /** A file whose first line is a secret ({@code -}: standard input); secrets never go on the command line. */
        SECRET_FILE(Path.class),
        /** A path made absolute here: the daemon's working directory is not this shell's. */
        ABSOLUTE_PATH(Path.class),
        /** JSON text, sent as the value it stands for (a config entry's list or mapping). */
        JSON_VALUE(JsonNode.class);

        final Class<?> type;

        Kind(Class<?> type) {
            this.type = type;
        }
    }

    private final String name;
    private final int index;
    private final String label;
    private final Kind kind;
    private final String[] at;
    private final String description;
    private final boolean required;

    private Param(String name, int index, String label, Kind kind, String at, String description, boolean required) {
        this.name = name;
        this.index = index;
        this.label = label;
        this.kind = kind;
        this.at = at.split("/");
        this.description = description;
        this.required = required;
    }

    /** A positional parameter, required. */
    static Param positional(int index, String label, Kind kind, String at, String description) {
        return new Param(null, index, label, kind, at, description, true);
    }

    /** An option, optional. */
    static Param option(String name, String label, Kind kind, String at, String description) {
        return new Param(name, -1, label, kind, at, description, false);
    }

    /** An option without a value: {@link Kind#FLAG} or {@link Kind#CLEAR}. */
    static Param flag(String name, Kind kind, String at, String description) {
        return option(name, "", kind, at, description);
    }

    Param required() {
        return new Param(name, index, label, kind, String.join("/", at), description, true);
    }

    /** The same positional parameter, optional. */
    Param optional() {
        return new Param(name, index, label, kind, String.join("/", at), description, false);
    }

    private ArgSpec spec() {
        Class<?>[] elements = kind.type == List.class ? new Class<?>[] {String.class} : new Class<?>[0];
        CommandLine.ITypeConverter<?>[] converters = kind == Kind.NUMBER
                ? new CommandLine.ITypeConverter<?>[] {Param::wholeNumber}
                : kind == Kind.JSON_VALUE
                        ? new CommandLine.ITypeConverter<?>[] {Param::jsonValue}
                        : new CommandLine.ITypeConverter<?>[0];
        if (name == null) {
            return PositionalParamSpec.builder()
                    .index(String.valueOf(index))
                    .arity(required ? "1" : "0..1")
                    .required(required)
                    .paramLabel(label)
                    .type(kind.type)
                    .auxiliaryTypes(elements)
                    .converters(converters)
                    .description(description)
                    .build();
        }
        return OptionSpec.builder(name)
                .required(required)
                .paramLabel(label)
                .type(kind.type)
                .auxiliaryTypes(elements)
                .converters(converters)
                .description(description)
                .build();
    }

    private static JsonNode jsonValue(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not JSON (quote keys and names, e.g. "
                    + "[{\"initiators\": [\"iqn.2026-11.com.example:host1\"], \"luns\": [0, 1]}])");
        }
    }

    private static Integer wholeNumber(String text) {
        try {
            return Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a whole number");
        }
    }

    @Override
    public void addTo(CommandSpec command) {
        ArgSpec spec = spec();
        if (spec instanceof OptionSpec o) {
            command.addOption(o);
        } else {
            command.addPositional((PositionalParamSpec) spec);
        }
    }

    @Override
    public void addTo(ArgGroupSpec.Builder group) {
        group.addArg(spec());
    }

    @Override
    public void collect(List<Param> into) {
        into.add(this);
    }

    /**
     * Puts the value given on the command line into {@code params} at this parameter's keys; nothing when not given.
     *
     * @throws IllegalArgumentException naming the option, when its value cannot be used (a secret file unreadable)
     */
    void putInto(ObjectNode params, ParseResult parsed) {
        Object value = name == null
                ? (parsed.hasMatchedPositional(index) ? parsed.matchedPositionalValue(index, null) : null)
                : parsed.matchedOptionValue(name, null);
        if (value == null) {
            return;
        }
        ObjectNode parent = params;
        for (int i = 0; i < at.length - 1; i++) {
            JsonNode child = parent.get(at[i]);
            parent = child instanceof ObjectNode o ? o : parent.putObject(at[i]);
        }
        parent.set(at[at.length - 1], json(value));
    }

    private JsonNode json(Object value) {
        return switch (kind) {
            case TEXT -> JSON.textNode((String) value);
            case NUMBER -> JSON.numberNode((Integer) value);
            case FLAG -> JSON.booleanNode(true);
            case CLEAR -> JSON.nullNode();
            case LIST -> texts((List<?>) value);
            case ENTRIES -> entries((List<?>) value);
            case SECRET_FILE -> JSON.textNode(secret((Path) value));
            case ABSOLUTE_PATH -> JSON.textNode(((Path) value).toAbsolutePath().toString());
            case JSON_VALUE -> (JsonNode) value;
        };
    }

    private static ArrayNode texts(List<?> values) {
        ArrayNode array = JSON.arrayNode();
        values.forEach(v -> array.add((String) v));
        return array;
    }

    /** {@code id=0,backing=ram,size=1G} as objects; values stay text, as the config rules read them. */
    private ArrayNode entries(List<?> values) {
        ArrayNode array = JSON.arrayNode();
        for (Object value : values) {
            ObjectNode entry = array.addObject();
            for (String pair : ((String) value).split(",", -1)) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException(name + " " + value + ": \"" + pair + "\" is not KEY=VALUE "
                            + "(write e.g. " + name + " id=0,backing=ram,size=1G)");
                }
                entry.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        return array;
    }

    /** The file's first line: a secret typed into a file usually ends with a newline that is not part of it. */
    private String secret(Path file) {
        try {
            String text = file.toString().equals("-")
                    ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                    : Files.readString(file, StandardCharsets.UTF_8);
            return text.lines().findFirst().orElse("");
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    name + ": cannot read the secret from " + file + ": " + Plain.reason(e), e);
        }
    }
}
