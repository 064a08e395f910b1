package dev.sluice.testkit.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking Redis client over one socket, enough to probe, configure and form servers in tests.
 *
 * <p>Replies map to Java values: simple and bulk strings to {@link String}, integers to {@link Long}, arrays to
 * {@link List}, nil to {@code null}. An error reply throws {@link ErrorReply}. Not thread-safe.
 */
final class RespClient implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code host:port}, failing after {@code timeout} to connect or to read one reply. */
    static RespClient connect(String host, int port, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            int millis = Math.toIntExact(Math.max(1, timeout.toMillis()));
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.setTcpNoDelay(true);
            return new RespClient(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends one command and returns its reply. */
    Object call(String... command) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        writeLine(request, "*" + command.length);
        for (String arg : command) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeLine(request, "$" + bytes.length);
            request.write(bytes);
            request.write('\r');
            request.write('\n');
        }
        out.write(request.toByteArray());
        out.flush();
        return readReply();
    }

    /** Sends one command whose reply is a string, and returns it. */
    String callString(String... command) throws IOException {
        Object reply = call(command);
        if (reply instanceof String s) {
            return s;
        }
        throw new IOException("expected a string reply to " + command[0] + ", got: " + reply);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private Object readReply() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Redis closed the connection before replying");
        }
        String line = readLine();
        return switch (type) {
            case '+' -> line;
            case '-' -> throw new ErrorReply(line);
            case ':' -> Long.parseLong(line);
            case '$' -> readBulk(Integer.parseInt(line));
            case '*' -> readArray(Integer.parseInt(line));
            default -> throw new IOException("not a RESP2 reply: starts with '" + (char) type + "' then " + line);
        };
    }

    private String readBulk(int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        if (bytes.length != length + 2) {
            throw new EOFException("Redis closed the connection inside a reply");
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    private List<Object> readArray(int count) throws IOException {
        if (count < 0) {
            return null;
        }
        List<Object> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            items.add(readReply());
        }
        return items;
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("Redis closed the connection inside a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    private static void writeLine(ByteArrayOutputStream out, String line) {
        out.writeBytes(line.getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
    }

    /** An error reply from Redis, such as {@code ERR unknown command}. */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }
}
