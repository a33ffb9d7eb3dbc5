package io.numaiscsi.admin;

import java.util.List;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Options that go together (a group whose required members are required once any member is given) or exclude each
 * other; picocli checks both and names the options in its usage error.
 */
final class Group implements Member {
    private final boolean exclusive;
    private final String multiplicity;
    private final List<Member> members;

    private Group(boolean exclusive, String multiplicity, List<Member> members) {
        this.exclusive = exclusive;
        this.multiplicity = multiplicity;
        this.members = members;
    }

    /** At most one of {@code members}. */
    static Group oneOf(Member... members) {
        return new Group(true, "0..1", List.of(members));
    }

    /** Members given together or not at all (each optional unless marked required). */
    static Group together(Member... members) {
        return new Group(false, "0..1", List.of(members));
    }

    /** The same group, given exactly once. */
    Group required() {
        return new Group(exclusive, "1", members);
    }

    private ArgGroupSpec spec() {
        ArgGroupSpec.Builder group = ArgGroupSpec.builder().exclusive(exclusive).multiplicity(multiplicity);
        members.forEach(m -> m.addTo(group));
        return group.build();
    }

    @Override
    public void addTo(CommandSpec command) {
        command.addArgGroup(spec());
    }

    @Override
    public void addTo(ArgGroupSpec.Builder group) {
        group.addSubgroup(spec());
    }

    @Override
    public void collect(List<Param> into) {
        members.forEach(m -> m.collect(into));
    }
}
