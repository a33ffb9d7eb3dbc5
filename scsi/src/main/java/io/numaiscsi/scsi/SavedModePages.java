package io.numaiscsi.scsi;

/**
 * The changeable mode parameters of one logical unit as MODE SELECT with SP saved them: the caching page's WCE and the
 * control page's D_SENSE.
 *
 * @param writeCache WCE: writes may be acknowledged before they are durable (false: every write is FUA)
 * @param descriptorSense D_SENSE: sense data in descriptor format
 */
public record SavedModePages(boolean writeCache, boolean descriptorSense) {
  /** What a unit has when nothing was saved. */
  public static final SavedModePages DEFAULTS = new SavedModePages(true, false);
}
