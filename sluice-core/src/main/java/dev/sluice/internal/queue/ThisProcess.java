package dev.sluice.internal.queue;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Where this process runs, as the workers it starts are listed: its host's name and its process id. */
public final class ThisProcess {
    /** This host's name: as the host resolves its own address, else {@code HOSTNAME}, else "localhost". */
    public static final String HOST = hostName();

    /** This process's id. */
    public static final long PID = ProcessHandle.current().pid();

    private ThisProcess() {}

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String named = System.getenv("HOSTNAME");
            return named == null || named.isBlank() ? "localhost" : named;
        }
    }
}
