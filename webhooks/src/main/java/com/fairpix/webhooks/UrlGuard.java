package com.fairpix.webhooks;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The SSRF guard for webhook URLs, run at registration and before every attempt: https only (http
 * behind a flag), no user info, IP literals only in canonical form, the host resolved once and
 * every address checked against an explicit deny list; the caller then connects only to the
 * returned addresses (DNS pinning), so a second lookup cannot swap in an internal address.
 * Sources: OWASP SSRF Prevention Cheat Sheet; IANA IPv4/IPv6 Special-Purpose Address Registries
 * (RFC 6890 and updates).
 */
public final class UrlGuard {
    /** Name resolution, replaceable so tests can stub DNS (and rebinding). */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    public static final Resolver SYSTEM_DNS = InetAddress::getAllByName;

    /** A URL that passed: where to connect, and the only addresses we may connect to. */
    public record Checked(URI uri, String host, int port, List<InetAddress> addresses) {}

    /**
     * A URL the guard refuses; the message says why and what to change, and is what the tenant sees.
     * It never names the address a host name resolved to (that would map the farm's internal network
     * for whoever registers names pointing into it); {@link #detail()} does, for operators' logs and
     * the attempt records of the admin API.
     */
    public static final class RefusedException extends IllegalArgumentException {
        private final String detail;

        public RefusedException(String message) {
            this(message, message);
        }

        public RefusedException(String message, String detail) {
            super(message);
            this.detail = detail;
        }

        /** The message with what only operators may see (the resolved address and its range). */
        public String detail() {
            return detail;
        }
    }

    /** A block of addresses: network bytes, prefix length in bits, and what it is. */
    public record Cidr(byte[] network, int prefix, String name) {
        boolean contains(InetAddress a) {
            byte[] b = a.getAddress();
            if (b.length != network.length) return false;
            int full = prefix / 8;
            for (int i = 0; i < full; i++) if (b[i] != network[i]) return false;
            int rest = prefix % 8;
            if (rest == 0) return true;
            int mask = (0xff << (8 - rest)) & 0xff;
            return (b[full] & mask) == (network[full] & mask);
        }

        public String text() {
            try {
                return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    // Declared before DENY: building DENY uses them.
    private static final Pattern CANONICAL_V4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    /** A last label that is a number (decimal, octal or hex): WHATWG URL parsers read such a host as IPv4. */
    private static final Pattern NUMERIC_LABEL = Pattern.compile("(0x[0-9a-f]*|\\d+)");

    /** The deny list: every special-purpose range a webhook must never reach. */
    public static final List<Cidr> DENY = List.of(
            cidr("0.0.0.0/8", "'this network' (RFC 791)"),
            cidr("10.0.0.0/8", "private (RFC 1918)"),
            cidr("100.64.0.0/10", "carrier-grade NAT shared space (RFC 6598)"),
            cidr("127.0.0.0/8", "loopback (RFC 1122)"),
            cidr("169.254.0.0/16", "link-local, incl. cloud metadata 169.254.169.254 (RFC 3927)"),
            cidr("172.16.0.0/12", "private (RFC 1918)"),
            cidr("192.0.0.0/24", "IETF protocol assignments (RFC 6890)"),
            cidr("192.0.2.0/24", "documentation TEST-NET-1 (RFC 5737)"),
            cidr("192.88.99.0/24", "6to4 relay anycast (RFC 7526)"),
            cidr("192.168.0.0/16", "private (RFC 1918)"),
            cidr("198.18.0.0/15", "benchmarking (RFC 2544)"),
            cidr("198.51.100.0/24", "documentation TEST-NET-2 (RFC 5737)"),
            cidr("203.0.113.0/24", "documentation TEST-NET-3 (RFC 5737)"),
            cidr("224.0.0.0/4", "multicast (RFC 5771)"),
            cidr("240.0.0.0/4", "reserved, incl. broadcast 255.255.255.255 (RFC 1112)"),
            cidr("::/128", "IPv6 unspecified (RFC 4291)"),
            cidr("::1/128", "IPv6 loopback (RFC 4291)"),
            cidr("::ffff:0:0/96", "IPv4-mapped IPv6 (RFC 4291)"),
            cidr("::/96", "IPv4-compatible IPv6, deprecated (RFC 4291)"),
            cidr("64:ff9b::/96", "NAT64 well-known prefix (RFC 6052)"),
            cidr("64:ff9b:1::/48", "local-use NAT64 (RFC 8215)"),
            cidr("100::/64", "IPv6 discard-only (RFC 6666)"),
            cidr("2001::/32", "Teredo (RFC 4380)"),
            cidr("2001:db8::/32", "IPv6 documentation (RFC 3849)"),
            cidr("2002::/16", "6to4 (RFC 3056)"),
            cidr("fc00::/7", "IPv6 unique local (ULA, RFC 4193)"),
            cidr("fe80::/10", "IPv6 link-local (RFC 4291)"),
            cidr("fec0::/10", "IPv6 site-local, deprecated (RFC 3879)"),
            cidr("ff00::/8", "IPv6 multicast (RFC 4291)"));

    private final boolean allowHttp;
    private final List<Cidr> allow;
    private final Resolver resolver;

    /**
     * @param allowHttp accept {@code http://} (local use; {@code FAIRPIX_WEBHOOKS_ALLOW_HTTP})
     * @param allow     ranges exempt from the deny list ({@code FAIRPIX_WEBHOOKS_ALLOW_LIST})
     */
    public UrlGuard(boolean allowHttp, List<Cidr> allow, Resolver resolver) {
        this.allowHttp = allowHttp;
        this.allow = List.copyOf(allow);
        this.resolver = resolver;
    }

    /** Parses {@code 127.0.0.1/32,::1} (a bare address is a /32 or /128). */
    public static List<Cidr> parseAllowList(String text) {
        List<Cidr> out = new ArrayList<>();
        if (text == null || text.isBlank()) return out;
        for (String part : text.split(",")) {
            String p = part.trim();
            if (!p.isEmpty()) out.add(cidr(p.contains("/") ? p : p + (p.contains(":") ? "/128" : "/32"), "allow-listed"));
        }
        return out;
    }

    static Cidr cidr(String text, String name) {
        int slash = text.indexOf('/');
        String addr = text.substring(0, slash);
        if (!addr.contains(":") && !CANONICAL_V4.matcher(addr).matches()) throw new IllegalArgumentException("'" + text + "' is not an address/prefix");
        try {
            byte[] bytes = InetAddress.getByName(addr).getAddress();
            if (addr.contains(":") && bytes.length == 4) bytes = mapped(bytes); // Java folds ::ffff:a.b.c.d to IPv4
            int prefix = Integer.parseInt(text.substring(slash + 1));
            if (prefix < 0 || prefix > bytes.length * 8) throw new IllegalArgumentException("bad prefix in '" + text + "'");
            return new Cidr(bytes, prefix, name);
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not an address/prefix");
        }
    }

    private static byte[] mapped(byte[] v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(v4, 0, b, 12, 4);
        return b;
    }

    /**
     * Checks {@code url} and resolves its host once.
     *
     * @throws RefusedException with the reason
     */
    public Checked check(String url) {
        if (url == null || url.isBlank()) throw new RefusedException("the webhook URL is empty");
        if (url.length() > 2048) throw new RefusedException("the webhook URL is longer than 2048 characters");
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new RefusedException("the webhook URL is not a valid URI: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("http")) {
            if (!allowHttp) throw new RefusedException("http:// webhook URLs are refused; use https:// (FAIRPIX_WEBHOOKS_ALLOW_HTTP=true allows http for local use only)");
        } else if (!scheme.equals("https")) {
            throw new RefusedException("the webhook URL must be https:// (got scheme '" + scheme + "')");
        }
        if (uri.getRawUserInfo() != null) throw new RefusedException("the webhook URL must not carry user info (user:password@)");
        if (uri.getRawFragment() != null) throw new RefusedException("the webhook URL must not have a #fragment");
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            // java.net.URI gives no host for forms like 0x7f.0.0.1 or 1.2.3.4. : say what they are.
            String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority().replaceFirst(":\\d*$", "");
            if (authority.matches("[0-9a-fA-FxX.]+") && authority.matches(".*\\d.*")) {
                throw new RefusedException("'" + authority + "' is a non-canonical IP literal (octal, hex, short or integer form); write IPv4 as four decimal octets, e.g. 93.184.216.34");
            }
            throw new RefusedException("the webhook URL has no valid host (" + uri.getRawAuthority() + ")");
        }
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        List<InetAddress> addresses = new ArrayList<>();
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            String inner = h.substring(1, h.length() - 1);
            if (!inner.contains(":")) throw new RefusedException("'" + host + "' is not an IPv6 literal");
            if (inner.contains("%")) throw new RefusedException("IPv6 literal '" + host + "' has a zone id; zone ids are refused");
            InetAddress a = literal(inner);
            if (a instanceof Inet4Address) {
                throw new RefusedException("IPv6 literal '" + host + "' is an IPv4-mapped IPv6 address (::ffff:0:0/96); refused");
            }
            addresses.add(a);
        } else {
            String[] labels = h.split("\\.", -1);
            String last = labels[labels.length - 1];
            if (NUMERIC_LABEL.matcher(last).matches() || last.isEmpty() && labels.length > 1 && NUMERIC_LABEL.matcher(labels[labels.length - 2]).matches()) {
                if (!CANONICAL_V4.matcher(h).matches()) {
                    throw new RefusedException("'" + host + "' is a non-canonical IP literal (octal, hex, short or integer form); write IPv4 as four decimal octets, e.g. 93.184.216.34");
                }
                addresses.add(literal(h));
            } else {
                try {
                    for (InetAddress a : resolver.resolve(h)) addresses.add(a);
                } catch (UnknownHostException e) {
                    throw new RefusedException("the webhook host '" + host + "' does not resolve");
                }
                if (addresses.isEmpty()) throw new RefusedException("the webhook host '" + host + "' does not resolve");
            }
        }
        for (InetAddress a : addresses) {
            String reason = denied(a);
            if (reason == null) continue;
            String named = "the webhook host '" + host + "' " + (h.equals(a.getHostAddress()) || h.startsWith("[") ? "is " : "resolves to ")
                    + a.getHostAddress() + ", which is " + reason + "; webhooks may only reach public addresses";
            // An IP literal is the tenant's own text: naming its range tells it nothing new.
            if (h.equals(a.getHostAddress()) || h.startsWith("[")) throw new RefusedException(named);
            throw new RefusedException("the webhook host '" + host + "' resolves to an address webhooks may not reach (private, loopback, link-local or "
                    + "otherwise reserved); webhooks may only reach public addresses", named);
        }
        return new Checked(uri, host, port, List.copyOf(addresses));
    }

    /** Why {@code a} is refused, or null when it may be reached. */
    public String denied(InetAddress a) {
        for (Cidr c : allow) if (c.contains(a)) return null;
        for (Cidr c : DENY) if (c.contains(a)) return c.name() + " " + c.text();
        if (a instanceof Inet6Address && a.getAddress().length != 16) return "an unknown address form";
        return null;
    }

    private static InetAddress literal(String text) {
        try {
            // A literal: InetAddress parses it without a DNS lookup.
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new RefusedException("'" + text + "' is not a valid IP literal");
        }
    }
}
