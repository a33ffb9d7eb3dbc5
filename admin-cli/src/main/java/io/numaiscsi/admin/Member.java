package io.numaiscsi.admin;

import java.util.List;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;

/** What a subcommand is made of: a parameter, or a group of parameters that go together or exclude each other. */
sealed interface Member permits Param, Group {
    /** Declares this in a subcommand's picocli model. */
    void addTo(CommandSpec command);

    /** Declares this inside a group. */
    void addTo(ArgGroupSpec.Builder group);

    /** The parameters this is or holds, for building the request. */
    void collect(List<Param> into);
}
