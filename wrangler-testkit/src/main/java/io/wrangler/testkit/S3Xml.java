package io.wrangler.testkit;

import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * S3Xml writes the XML bodies of S3's answers (root element in S3's namespace, text escaped; with
 * {@code encoding-type=url} the key fields URL-encoded as S3 encodes them) and reads the XML bodies of its requests
 * (DeleteObjects, CompleteMultipartUpload) with the JDK's parser, DTDs off.
 */
final class S3Xml {
    static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    static final DateTimeFormatter HTTP = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final StringBuilder out = new StringBuilder(256);
    private final String root;
    private final boolean urlEncoded;

    private S3Xml(String root, boolean urlEncoded) {
        this.root = root;
        this.urlEncoded = urlEncoded;
        // S3's error bodies, unlike its results, name no namespace
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<").append(root)
                .append(root.equals("Error") ? ">" : " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    }

    /** A body whose root element is {@code root}; key fields as they are. */
    static S3Xml of(String root) {
        return new S3Xml(root, false);
    }

    /** A body whose key fields ({@link #key}) are URL-encoded when {@code encodingType} is {@code url}. */
    static S3Xml of(String root, String encodingType) {
        return new S3Xml(root, "url".equals(encodingType));
    }

    S3Xml open(String element) {
        out.append('<').append(element).append('>');
        return this;
    }

    S3Xml close(String element) {
        out.append("</").append(element).append('>');
        return this;
    }

    /** {@code <element>value</element>}, nothing for a null value; an Instant as S3 writes times. */
    S3Xml text(String element, Object value) {
        if (value != null) {
            String s = value instanceof Instant i ? ISO.format(i) : value.toString();
            out.append('<').append(element).append('>');
            escape(s);
            out.append("</").append(element).append('>');
        }
        return this;
    }

    /** A key, a prefix, a marker or a delimiter: URL-encoded if the request asked so. */
    S3Xml key(String element, String value) {
        return text(element, value == null || !urlEncoded ? value : urlEncode(value));
    }

    /** As S3 encodes keys for {@code encoding-type=url}: form encoding, {@code /} left as it is. */
    static String urlEncode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("%2F", "/");
    }

    byte[] bytes() {
        out.append("</").append(root).append('>');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Escapes the markup characters, and the characters XML 1.0 cannot carry as text (controls, a carriage return that
     * a parser would fold) as character references, as S3 does.
     */
    private void escape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' || c == 0x7f) {
                        out.append("&#x").append(Integer.toHexString(c).toUpperCase(Locale.ROOT)).append(';');
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }

    /** The root element of an XML request body; MalformedXML (400) if it is not XML. */
    static Element parse(byte[] body) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setNamespaceAware(false);
            return f.newDocumentBuilder().parse(new ByteArrayInputStream(body)).getDocumentElement();
        } catch (Exception e) {
            throw malformed();
        }
    }

    static RuntimeException malformed() {
        return MemoryS3.error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our "
                + "published schema");
    }

    /** The child elements of {@code parent} named {@code name}, in order. */
    static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    /** The text of the first child of {@code parent} named {@code name}, or null. */
    static String childText(Element parent, String name) {
        List<Element> c = children(parent, name);
        return c.isEmpty() ? null : c.get(0).getTextContent();
    }
}
