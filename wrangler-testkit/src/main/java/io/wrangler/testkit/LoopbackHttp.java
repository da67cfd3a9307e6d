package io.wrangler.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * LoopbackHttp makes the JDK HTTP servers of the testkit (LocalS3's key proxy, FaultyS3, LocalGlue) on 127.0.0.1 with
 * TCP_NODELAY. The JDK server leaves Nagle's algorithm on by default, and a small answer written in two segments then
 * waits for the client's delayed ACK: about 40 ms on every request, which made each S3 request of a test three times
 * slower than S3Mock itself. The JDK reads the setting once, when its first server starts, so it is set before that.
 */
final class LoopbackHttp {
    private static final String NODELAY = "sun.net.httpserver.nodelay";

    private LoopbackHttp() {
    }

    static HttpServer create() throws IOException {
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
        return HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    }
}
