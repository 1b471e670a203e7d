package com.fairpix.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/** A loopback HTTP server of the JDK's for the CLI's unit tests: one path, answered by a handler. */
final class StubHttp {
    private StubHttp() {}

    /** Started on a free port of 127.0.0.1; stop it with {@code stop(0)}. */
    static HttpServer start(String path, HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(path, handler);
        server.start();
        return server;
    }

    /** Answers with {@code status}, {@code contentType} and {@code body}, and closes the exchange. */
    static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    /** The server's base URL. */
    static String url(HttpServer server) {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }
}
