package com.fairpix.core.log;

/**
 * Makes a value that came from a tenant (a watermark key, a webhook URL, an error message that
 * quotes either) safe to put in a log line: CR and LF become {@code \r} and {@code \n}, every other
 * control character (C0, DEL, C1, ANSI escape sequences' ESC) becomes {@code \\uXXXX}, so a tenant
 * can neither forge log lines nor send escape sequences to an operator's terminal. Long values are
 * cut at {@link #MAX_CHARS} characters.
 */
public final class LogSafe {
    public static final int MAX_CHARS = 2048;

    private LogSafe() {}

    /** C0 and C1 controls, DEL and the Unicode line and paragraph separators: what may forge a log line or a terminal. */
    public static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }

    /** @return {@code value} with control characters escaped; "null" for null */
    public static String of(Object value) {
        if (value == null) return "null";
        String s = value.toString();
        StringBuilder out = null;
        int n = Math.min(s.length(), MAX_CHARS);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (isControl(c)) {
                if (out == null) out = new StringBuilder(n + 16).append(s, 0, i);
                switch (c) {
                    case '\r' -> out.append("\\r");
                    case '\n' -> out.append("\\n");
                    case '\t' -> out.append("\\t");
                    default -> out.append(String.format("\\u%04x", (int) c));
                }
            } else if (out != null) {
                out.append(c);
            }
        }
        String safe = out == null ? s.substring(0, n) : out.toString();
        return s.length() > MAX_CHARS ? safe + "…(" + s.length() + " chars)" : safe;
    }
}
