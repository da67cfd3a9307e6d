package io.wrangler.commit;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * Write ids: {@code 20241115T031500Z-9f3a1c2b7e6d5a40}. Time first, so that listings sort by age; 64 random
 * bits, so that two writers never pick the same id.
 */
final class WriteIds {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();

    private WriteIds() {
    }

    static String next() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return TIME.format(Instant.now()) + "-" + HexFormat.of().formatHex(bytes);
    }

    /** True when a key's file name carries this write id. */
    static boolean carries(String key, String writeId) {
        return key.substring(key.lastIndexOf('/') + 1).contains(writeId);
    }
}
