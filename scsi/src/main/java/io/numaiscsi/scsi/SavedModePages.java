package io.numaiscsi.scsi;

/**
 * The changeable mode parameters of one logical unit as MODE SELECT with SP saved them: the caching page's WCE and the
 * control page's D_SENSE and SWP.
 *
 * @param writeCache WCE: writes may be acknowledged before they are durable (false: every write is FUA)
 * @param descriptorSense D_SENSE: sense data in descriptor format
 * @param softwareWriteProtect SWP: the medium is write-protected for every I_T nexus
 */
public record SavedModePages(boolean writeCache, boolean descriptorSense, boolean softwareWriteProtect) {
    /** What a unit has when nothing was saved. */
    public static final SavedModePages DEFAULTS = new SavedModePages(true, false, false);
}
