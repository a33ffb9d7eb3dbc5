package io.numaiscsi.scsi;

/** The persistent reservation types of SPC-4 table 170, with the code the TYPE field carries. */
enum ReservationType {
    WRITE_EXCLUSIVE(1),
    EXCLUSIVE_ACCESS(3),
    WRITE_EXCLUSIVE_REGISTRANTS_ONLY(5),
    EXCLUSIVE_ACCESS_REGISTRANTS_ONLY(6),
    WRITE_EXCLUSIVE_ALL_REGISTRANTS(7),
    EXCLUSIVE_ACCESS_ALL_REGISTRANTS(8);

    final int code;

    ReservationType(int code) {
        this.code = code;
    }

    /** The type with this TYPE code, or null when SPC-4 defines none (0 included: no reservation). */
    static ReservationType of(int code) {
        for (ReservationType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }

    /** Every registrant holds the reservation (the ALL REGISTRANTS types). */
    boolean allRegistrants() {
        return this == WRITE_EXCLUSIVE_ALL_REGISTRANTS || this == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** Registrants that do not hold it still have access (the REGISTRANTS ONLY and ALL REGISTRANTS types). */
    boolean registrantsHaveAccess() {
        return code >= WRITE_EXCLUSIVE_REGISTRANTS_ONLY.code;
    }

    /** Others may read (the WRITE EXCLUSIVE types). */
    boolean writeExclusive() {
        return this == WRITE_EXCLUSIVE
                || this == WRITE_EXCLUSIVE_REGISTRANTS_ONLY
                || this == WRITE_EXCLUSIVE_ALL_REGISTRANTS;
    }
}
