package io.wrangler.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * KeyCodec turns any S3 key into one of the few characters S3Mock stores and lists without fault, and back.
 *
 * <p>S3Mock (4.x) corrupts its bucket metadata on a key with a 4-byte UTF-8 character (and then fails every later
 * request on the bucket), breaks its listings on control characters, and answers 400 or unparsable XML for keys with
 * quotes, {@code <}, {@code &} or U+FFFF, all of which AWS S3 accepts. {@link LocalS3} therefore keeps keys encoded on
 * the server: each UTF-8 byte becomes two characters, a high-nibble character from {@code ( ) -} (nibbles 0 to 2) and
 * {@code 3..9 A..F} (3 to 15) and a low-nibble hex digit, except {@code /}, which stays itself. The encoding keeps
 * what listings rely on: the order of keys (UTF-8 byte order, as S3 lists: the high-nibble characters of bytes below
 * {@code /} sort below it, the others above), prefixes (a key starts with a prefix exactly when its encoding starts
 * with the prefix's) and the delimiter {@code /}.
 */
final class KeyCodec {
    private static final char[] HIGH = {'(', ')', '-', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};
    private static final char[] LOW = "0123456789ABCDEF".toCharArray();

    private KeyCodec() {
    }

    static String encode(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            if (b == '/') {
                sb.append('/');
            } else {
                sb.append(HIGH[(b >> 4) & 0xF]).append(LOW[b & 0xF]);
            }
        }
        return sb.toString();
    }

    /** The key that {@code encoded} stands for; a string that is no encoding (an object stored before) is returned as it is. */
    static String decode(String encoded) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(encoded.length() / 2);
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '/') {
                out.write('/');
                continue;
            }
            int high = indexOf(HIGH, c);
            int low = i + 1 < encoded.length() ? indexOf(LOW, encoded.charAt(i + 1)) : -1;
            if (high < 0 || low < 0) {
                return encoded;
            }
            out.write(high << 4 | low);
            i++;
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int indexOf(char[] alphabet, char c) {
        for (int i = 0; i < alphabet.length; i++) {
            if (alphabet[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
