package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Mode parameters of one logical unit (SPC-4 7.5, SBC-3 6.4): read-write error recovery, caching, control and
 * informational exceptions. Changeable: the caching page's WCE (0: every write is FUA) and the control page's D_SENSE
 * and SWP (software write protect). With a {@link ModePageStore} that persists, MODE SELECT with SP=1 saves them and MODE SENSE reports the saved values
 * (PS set on both pages); a LUN reset and a restart bring the saved values back as the current ones.
 */
final class ModePages {
    static final int READ_WRITE_ERROR_RECOVERY = 0x01;
    static final int CACHING = 0x08;
    static final int CONTROL = 0x0A;
    static final int INFORMATIONAL_EXCEPTIONS = 0x1C;
    static final int ALL_PAGES = 0x3F;
    private static final int[] PAGES = {READ_WRITE_ERROR_RECOVERY, CACHING, CONTROL, INFORMATIONAL_EXCEPTIONS};

    static final int PC_CURRENT = 0;
    static final int PC_CHANGEABLE = 1;
    static final int PC_DEFAULT = 2;
    static final int PC_SAVED = 3;

    private static final int D_SENSE = 0x04;
    /** Control page byte 4: software write protect, for every I_T nexus (SPC-4 7.5.8). */
    private static final int SWP = 0x08;

    private static final int WCE = 0x04;
    private static final int PS = 0x80;
    private static final int SP = 0x01;

    private volatile boolean writeCache = true;
    private volatile boolean descriptorSense;
    private boolean softwareWriteProtect;
    private SavedModePages saved = SavedModePages.DEFAULTS;
    private ModePageStore store = ModePageStore.NONE;

    boolean descriptorSense() {
        return descriptorSense;
    }

    /** SWP is set: commands that change the medium end DATA PROTECT. On the unit's thread. */
    boolean softwareWriteProtect() {
        return softwareWriteProtect;
    }

    /** WCE: false when every write must be durable before its status (the unit treats them all as FUA). */
    boolean writeCacheEnabled() {
        return writeCache;
    }

    /** Saves to {@code store} from now on; {@code loaded} (null: nothing saved) becomes the saved and current values. */
    void store(ModePageStore store, SavedModePages loaded) {
        this.store = Objects.requireNonNull(store, "store");
        saved = loaded != null ? loaded : SavedModePages.DEFAULTS;
        reset();
    }

    /** A LUN reset: the current values become the saved ones (the defaults when nothing was saved). */
    void reset() {
        writeCache = saved.writeCache();
        descriptorSense = saved.descriptorSense();
        softwareWriteProtect = saved.softwareWriteProtect();
    }

    /** MODE SELECT with SP=1: the parameters it made current are to be saved ({@link #saveCurrent}). */
    static boolean saves(ScsiTask t) {
        return (t.cdb[1] & SP) != 0;
    }

    /** Saves the current values; {@code done} gets null once they are durable, or the error. On the unit's thread. */
    void saveCurrent(Consumer<IOException> done) {
        SavedModePages pages = new SavedModePages(writeCache, descriptorSense, softwareWriteProtect);
        saved = pages;
        store.save(pages, done);
    }

    /** The header's DEVICE-SPECIFIC PARAMETER for direct-access devices: WP (write protected), DPOFUA 1. */
    private static int deviceSpecific(LogicalUnit lu) {
        return (lu.readOnly() || lu.modePages.softwareWriteProtect ? 0x80 : 0) | 0x10;
    }

    /** MODE SENSE(6) / (10): header, optional block descriptor, then the requested page(s). */
    SenseReason sense(ScsiTask t, LogicalUnit lu, ByteBuf out) {
        byte[] c = t.cdb;
        boolean ten = (c[0] & 0xFF) == 0x5A;
        boolean dbd = (c[1] & 0x08) != 0;
        boolean longLba = ten && (c[1] & 0x10) != 0;
        int pc = (c[2] & 0xC0) >>> 6;
        int page = c[2] & 0x3F;
        int subpage = c[3] & 0xFF;
        if (pc == PC_SAVED && !store.persists()) {
            return SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED;
        }
        boolean provisioning = lu.provisioning.supported();
        boolean provisioningOnly =
                provisioning && page == ProvisioningModePage.PAGE && subpage == ProvisioningModePage.SUBPAGE;
        boolean withSubpages = subpage == 0xFF && (page == ALL_PAGES || page == ProvisioningModePage.PAGE);
        if (subpage != 0 && !provisioningOnly && !withSubpages) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        if (page != ALL_PAGES && length(page) < 0) {
            return SenseReason.INVALID_FIELD_IN_CDB;
        }
        int start = out.writerIndex();
        int descriptorLength = dbd ? 0 : longLba ? 16 : 8;
        if (ten) {
            out.writeShort(0);
            out.writeByte(0); // medium type
            out.writeByte(deviceSpecific(lu));
            out.writeByte(longLba ? 1 : 0);
            out.writeByte(0);
            out.writeShort(descriptorLength);
        } else {
            out.writeByte(0);
            out.writeByte(0);
            out.writeByte(deviceSpecific(lu));
            out.writeByte(descriptorLength);
        }
        if (descriptorLength == 8) {
            out.writeInt(lu.blockCount > 0xFFFF_FFFFL ? -1 : (int) lu.blockCount);
            out.writeInt(lu.blockSize); // density code 0 in the high byte
        } else if (descriptorLength == 16) {
            out.writeLong(lu.blockCount);
            out.writeInt(0);
            out.writeInt(lu.blockSize);
        }
        if (page == ALL_PAGES) {
            for (int p : PAGES) {
                writePage(p, pc, out);
            }
        } else if (!provisioningOnly) {
            writePage(page, pc, out);
        }
        if ((provisioningOnly || withSubpages) && provisioning) {
            ProvisioningModePage.write(lu, pc, out); // 1Ch/02h follows 1Ch/00h, the last page
        }
        int modeDataLength = out.writerIndex() - start - (ten ? 2 : 1);
        if (ten) {
            out.setShort(start, modeDataLength);
        } else {
            out.setByte(start, Math.min(255, modeDataLength));
        }
        return null;
    }

    /**
     * MODE SELECT(6) / (10) parameter list; only changeable bits may differ from the current values. Applies it to the
     * current values; saving (SP=1) is the caller's next step.
     */
    SenseReason select(ScsiTask t, UnitAttentions unitAttentions) {
        boolean ten = (t.cdb[0] & 0xFF) == 0x55;
        if (saves(t) && !store.persists()) {
            return SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED;
        }
        int length = t.dataOutLength;
        if (length == 0) {
            return null;
        }
        ByteBuf p = t.dataOut;
        if (p == null || p.readableBytes() < length) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        byte[] list = new byte[length];
        p.getBytes(p.readerIndex(), list);
        int headerLength = ten ? 8 : 4;
        if (length < headerLength) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        int descriptorLength = ten ? Cdb.u16(list, 6) : Cdb.u8(list, 3);
        if (descriptorLength != 0 && descriptorLength != 8 && descriptorLength != 16) {
            return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
        }
        int at = headerLength + descriptorLength;
        if (at > length) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        boolean newDescriptorSense = descriptorSense;
        boolean newSoftwareWriteProtect = softwareWriteProtect;
        boolean newWriteCache = writeCache;
        while (at < length) {
            if (length - at < 2) {
                return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
            }
            int page = list[at] & 0x3F;
            boolean subpageFormat = (list[at] & 0x40) != 0;
            int pageLength = length(page);
            if (subpageFormat || pageLength < 0 || Cdb.u8(list, at + 1) != pageLength - 2) {
                return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
            }
            if (at + pageLength > length) {
                return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
            }
            byte[] current = pageBytes(page, PC_CURRENT);
            byte[] changeable = pageBytes(page, PC_CHANGEABLE);
            for (int i = 2; i < pageLength; i++) {
                if (((list[at + i] ^ current[i]) & ~changeable[i]) != 0) {
                    return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
                }
            }
            if (page == CONTROL) {
                newDescriptorSense = (list[at + 2] & D_SENSE) != 0;
                newSoftwareWriteProtect = (list[at + 4] & SWP) != 0;
            } else if (page == CACHING) {
                newWriteCache = (list[at + 2] & WCE) != 0;
            }
            at += pageLength;
        }
        if (newDescriptorSense != descriptorSense
                || newSoftwareWriteProtect != softwareWriteProtect
                || newWriteCache != writeCache) {
            descriptorSense = newDescriptorSense;
            softwareWriteProtect = newSoftwareWriteProtect;
            writeCache = newWriteCache;
            unitAttentions.postToAllExcept(SenseReason.MODE_PARAMETERS_CHANGED, t.nexus);
        }
        return null;
    }

    /** Page length including its 2-byte header, or -1 when the page is not implemented. */
    static int length(int page) {
        return switch (page) {
            case READ_WRITE_ERROR_RECOVERY, CONTROL, INFORMATIONAL_EXCEPTIONS -> 12;
            case CACHING -> 20;
            default -> -1;
        };
    }

    private void writePage(int page, int pc, ByteBuf out) {
        out.writeBytes(pageBytes(page, pc));
    }

    byte[] pageBytes(int page, int pc) {
        byte[] b = new byte[length(page)];
        b[0] = (byte) page;
        b[1] = (byte) (b.length - 2);
        boolean changeable = pc == PC_CHANGEABLE;
        SavedModePages values = pc == PC_SAVED
                ? saved
                : pc == PC_DEFAULT
                        ? SavedModePages.DEFAULTS
                        : new SavedModePages(writeCache, descriptorSense, softwareWriteProtect);
        switch (page) {
            case CACHING -> {
                b[0] |= (byte) (store.persists() ? PS : 0);
                if (changeable) {
                    b[2] = WCE;
                } else {
                    b[2] = (byte) (values.writeCache() ? WCE : 0);
                }
            }
            case CONTROL -> {
                b[0] |= (byte) (store.persists() ? PS : 0);
                if (changeable) {
                    b[2] = D_SENSE;
                    b[4] = SWP;
                } else {
                    b[2] = (byte) (values.descriptorSense() ? D_SENSE : 0);
                    b[4] = (byte) (values.softwareWriteProtect() ? SWP : 0);
                    b[3] = 0x10; // queue algorithm modifier 1: unrestricted reordering
                    b[8] = (byte) 0xFF; // busy timeout period: unlimited
                    b[9] = (byte) 0xFF;
                }
            }
            default -> {}
        }
        return b;
    }
}
