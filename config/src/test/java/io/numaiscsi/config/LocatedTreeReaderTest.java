package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.Test;

class LocatedTreeReaderTest {

    @Test
    void everyNodeKeepsItsLineAndColumn() throws ConfigException {
        Node root = LocatedTreeReader.read("""
                a: 1
                b:
                  - x
                  - {c: true}
                d: "quoted"
                """, "t.yaml");
        Node.Mapping m = assertInstanceOf(Node.Mapping.class, root);
        Node.Entry a = m.entry("a");
        assertEquals(1, a.line());
        Node.Scalar one = assertInstanceOf(Node.Scalar.class, a.value());
        assertEquals("1", one.text());
        assertEquals(JsonToken.VALUE_NUMBER_INT, one.token());
        assertEquals(4, one.column());

        Node.Sequence b = assertInstanceOf(Node.Sequence.class, m.entry("b").value());
        assertEquals(2, m.entry("b").line());
        assertEquals(3, b.items().get(0).line());
        assertEquals(3, b.items().get(0).column() - 2);
        Node.Mapping inner = assertInstanceOf(Node.Mapping.class, b.items().get(1));
        assertEquals(4, inner.entry("c").line());
        assertEquals(JsonToken.VALUE_TRUE, ((Node.Scalar) inner.entry("c").value()).token());

        Node.Scalar d = (Node.Scalar) m.entry("d").value();
        assertEquals("quoted", d.text());
        assertEquals(5, d.line());
    }

    @Test
    void emptyDocumentIsAnEmptyMapping() throws ConfigException {
        Node.Mapping m = assertInstanceOf(Node.Mapping.class, LocatedTreeReader.read("# only a comment\n", "t.yaml"));
        assertEquals(0, m.entries().size());
    }

    @Test
    void nestedDuplicateKeyIsReportedOnTheSecondOccurrence() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> LocatedTreeReader.read("a:\n  b: 1\n  c: 2\n  b: 3\n", "t.yaml"));
        assertEquals("t.yaml:4: a.b: duplicate key (first written at line 2)", e.getMessage());
    }

    @Test
    void syntaxErrorInsideAListNamesTheItem() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> LocatedTreeReader.read("a:\n  - x\n  - [1, 2\nb: 3\n", "t.yaml"));
        assertEquals(4, e.line(), e.getMessage());
        assertEquals(2, e.column(), e.getMessage());
        assertEquals("a[1]", e.keyPath(), e.getMessage());
    }
}
