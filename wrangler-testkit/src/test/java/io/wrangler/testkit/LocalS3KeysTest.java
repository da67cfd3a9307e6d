package io.wrangler.testkit;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalS3KeysTest {
    @Test
    void probe() {
        try (LocalS3 s3 = LocalS3.start()) {
            s3.createBucket("bkt");
            String big = "k/" + "\uD83D\uDE00".repeat(255) + "ab";
            System.out.println("big bytes " + big.getBytes(StandardCharsets.UTF_8).length);
            for (String key : List.of("t/p=\uD83D\uDE00/x", "a\u0001b", "a\u007Fb", "a\u0000b", "a%2Fb", "a+b c", "q?x#y&z=1", "\"'<>&\\",
                    "\uFFFF", "\uFFFD", "\u00e9\u4e2d", big, "x".repeat(1024))) {
                try {
                    s3.put("bkt", key, key.getBytes(StandardCharsets.UTF_8));
                    boolean listed = s3.list("bkt", "").containsKey(key); if (!listed) System.out.println("LIST " + s3.list("bkt", "").keySet().stream().map(k -> k.codePoints().limit(12).boxed().toList()).toList());
                    boolean got = new String(s3.get("bkt", key), StandardCharsets.UTF_8).equals(key);
                    s3.client().copyObject(b -> b.sourceBucket("bkt").sourceKey(key).destinationBucket("bkt").destinationKey(key + "c"));
                    boolean copied = s3.list("bkt", key).containsKey(key + "c");
                    System.out.println("KEY " + key.codePoints().limit(8).boxed().toList() + " listed=" + listed + " got=" + got + " copied=" + copied);
                } catch (Exception e) {
                    System.out.println("KEY " + key.codePoints().limit(8).boxed().toList() + " FAILED " + e.getMessage());
                }
                try {
                    s3.put("bkt", "plain", new byte[] {1});
                } catch (Exception e) {
                    System.out.println("   then plain FAILED " + e.getMessage());
                }
            }
        }
    }
}
