package io.wrangler.testkit;

import com.sun.net.httpserver.Headers;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The body of an S3 request as S3 takes it in: an {@code aws-chunked} body (what the AWS SDK sends by default, with
 * chunk signatures or without, and its checksum in a trailer) decoded to its content, and every digest the request
 * carries verified against that content: Content-MD5 (BadDigest / InvalidDigest), a SHA-256 in
 * {@code x-amz-content-sha256} (XAmzContentSHA256Mismatch) and an {@code x-amz-checksum-<algorithm>} header or trailer
 * (BadDigest), CRC32, CRC32C, CRC64NVME, SHA1 or SHA256. The checksum found is kept, to be answered as S3 answers it.
 */
final class S3Body {
    /** The checksum algorithms S3 takes, by the name of their header's suffix. */
    static final List<String> ALGORITHMS = List.of("crc32", "crc32c", "crc64nvme", "sha1", "sha256");

    final byte[] content;
    /** The algorithm of the request's checksum (lower case, as in its header), or null for none. */
    final String algorithm;
    /** The request's checksum, base64, or null. */
    final String checksum;

    private S3Body(byte[] content, String algorithm, String checksum) {
        this.content = content;
        this.algorithm = algorithm;
        this.checksum = checksum;
    }

    /** Decodes and verifies {@code raw}, the bytes that came on the wire under {@code headers}. */
    static S3Body of(Headers headers, byte[] raw) {
        String sha = headers.getFirst("x-amz-content-sha256");
        String encoding = headers.getFirst("Content-Encoding");
        boolean chunked = sha != null && sha.startsWith("STREAMING-") || encoding != null && encoding.contains("aws-chunked");
        Map<String, String> trailers = new LinkedHashMap<>();
        byte[] content = chunked ? dechunk(raw, trailers) : raw;
        String decoded = headers.getFirst("x-amz-decoded-content-length");
        if (chunked && decoded != null && Long.parseLong(decoded.trim()) != content.length) {
            throw MemoryS3.error(400, "IncompleteBody", "You did not provide the number of bytes specified by the "
                    + "x-amz-decoded-content-length HTTP header");
        }
        String md5 = headers.getFirst("Content-MD5");
        if (md5 != null) {
            byte[] want;
            try {
                want = Base64.getDecoder().decode(md5.trim());
            } catch (IllegalArgumentException e) {
                want = new byte[0];
            }
            if (want.length != 16) {
                throw MemoryS3.error(400, "InvalidDigest", "The Content-MD5 you specified was invalid.");
            }
            if (!MessageDigest.isEqual(want, digest("MD5", content))) {
                throw MemoryS3.error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
            }
        }
        if (sha != null && sha.length() == 64 && isHex(sha)
                && !sha.equalsIgnoreCase(HexFormat.of().formatHex(digest("SHA-256", content)))) {
            throw MemoryS3.error(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what "
                    + "was computed.");
        }
        for (String algorithm : ALGORITHMS) {
            String name = "x-amz-checksum-" + algorithm;
            String claimed = trailers.containsKey(name) ? trailers.get(name) : headers.getFirst(name);
            if (claimed != null) {
                String computed = checksum(algorithm, content);
                if (!computed.equals(claimed.trim())) {
                    throw MemoryS3.error(400, "BadDigest", "The " + algorithm.toUpperCase(Locale.ROOT) + " you specified did not match "
                            + "the calculated checksum.");
                }
                return new S3Body(content, algorithm, computed);
            }
        }
        return new S3Body(content, null, null);
    }

    private static boolean isHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The content of an aws-chunked body: chunks of {@code <hex size>[;chunk-signature=<sig>]\r\n<bytes>\r\n} up to a
     * chunk of size 0, then trailer lines {@code name:value\r\n} (put in {@code trailers}, names in lower case) up to an
     * empty line or the end.
     */
    static byte[] dechunk(byte[] raw, Map<String, String> trailers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length);
        int at = 0;
        while (true) {
            int eol = lineEnd(raw, at);
            String header = new String(raw, at, eol - at, StandardCharsets.US_ASCII);
            int semi = header.indexOf(';');
            int size;
            try {
                size = Integer.parseInt((semi < 0 ? header : header.substring(0, semi)).trim(), 16);
            } catch (NumberFormatException e) {
                throw incomplete();
            }
            at = eol + 2;
            if (size == 0) {
                break;
            }
            if (size < 0 || at + size > raw.length) {
                throw incomplete();
            }
            out.write(raw, at, size);
            at += size;
            if (at + 2 > raw.length || raw[at] != '\r' || raw[at + 1] != '\n') {
                throw incomplete();
            }
            at += 2;
        }
        while (at < raw.length) {
            int eol = raw.length;
            for (int i = at; i + 1 < raw.length; i++) {
                if (raw[i] == '\r' && raw[i + 1] == '\n') {
                    eol = i;
                    break;
                }
            }
            String line = new String(raw, at, eol - at, StandardCharsets.UTF_8);
            at = eol + 2;
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                trailers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
        }
        return out.toByteArray();
    }

    private static int lineEnd(byte[] raw, int from) {
        for (int i = from; i + 1 < raw.length; i++) {
            if (raw[i] == '\r' && raw[i + 1] == '\n') {
                return i;
            }
        }
        throw incomplete();
    }

    private static RuntimeException incomplete() {
        return MemoryS3.error(400, "IncompleteBody", "The request body is not a well-formed aws-chunked body");
    }

    /** The checksum of {@code content} by {@code algorithm} (a name of {@link #ALGORITHMS}), base64 as S3 gives it. */
    static String checksum(String algorithm, byte[] content) {
        byte[] value = switch (algorithm) {
            case "crc32" -> crc(new CRC32(), content);
            case "crc32c" -> crc(new CRC32C(), content);
            case "crc64nvme" -> ByteBuffer.allocate(8).putLong(crc64nvme(content)).array();
            case "sha1" -> digest("SHA-1", content);
            case "sha256" -> digest("SHA-256", content);
            default -> throw new IllegalArgumentException(algorithm);
        };
        return Base64.getEncoder().encodeToString(value);
    }

    private static byte[] crc(Checksum c, byte[] content) {
        c.update(content, 0, content.length);
        return ByteBuffer.allocate(4).putInt((int) c.getValue()).array();
    }

    /** The reflected form of CRC-64/NVME's polynomial 0xAD93D23594C93659. */
    private static final long NVME_REFLECTED = 0x9A6C9329AC4BC9B5L;
    private static final long[] NVME_TABLE = new long[256];

    static {
        for (int i = 0; i < 256; i++) {
            long c = i;
            for (int bit = 0; bit < 8; bit++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ NVME_REFLECTED : c >>> 1;
            }
            NVME_TABLE[i] = c;
        }
    }

    /** CRC-64/NVME: reflected, initial value and final XOR all ones (its check value for "123456789" is 0xAE8B14860A799888). */
    static long crc64nvme(byte[] content) {
        long c = -1L;
        for (byte b : content) {
            c = NVME_TABLE[(int) ((c ^ b) & 0xff)] ^ (c >>> 8);
        }
        return ~c;
    }

    static byte[] digest(String algorithm, byte[] content) {
        try {
            return MessageDigest.getInstance(algorithm).digest(content);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
