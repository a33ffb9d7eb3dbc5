package io.numaiscsi.config;

/**
 * The {@code numa:} section.
 *
 * @param pretendNodes 0 = the real topology; N >= 2 = split the CPUs into N pretend nodes (no memory binding)
 */
public record NumaSettings(int pretendNodes) {

    public static final NumaSettings DEFAULT = new NumaSettings(0);
}
