package dev.sluice.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.queue.Codec;
import dev.sluice.queue.QueueOptions;
import dev.sluice.server.internal.ConfigNode;
import dev.sluice.server.internal.Policies;
import dev.sluice.server.internal.QueueConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * The configuration file of a Sluice server ({@code ./sluice serve --config FILE}), YAML: where it listens, the
 * Redis it serves (none: the in-memory engine), its API tokens, the dashboard's settings, and the queues, limiters
 * and chains it declares. {@link #load(Path)} reads and checks a file; {@link #open(Sluice)} opens what it declares
 * on an engine. The README's "Configuration file" section shows every key.
 *
 * <p>A file is checked whole before anything starts: an unknown key, a value of the wrong type or out of range, a
 * chain naming an unknown limiter, a token given twice or whose environment variable is unset each fail the load
 * with one {@link IllegalArgumentException} whose message names the file, the key path ({@code
 * limiters.stripe.rate}) and the allowed values. Secrets never appear in messages or in {@code toString()}.
 *
 * @param host the interface to listen on ({@code server.host}); {@value #DEFAULT_HOST} by default
 * @param port the port ({@code server.port}), 0 to 65535; {@value #DEFAULT_PORT} by default
 * @param redis the Redis URL to serve ({@code redis}), or null for the in-memory engine
 * @param tokens the API tokens, in file order; none means every request may do everything, on loopback only
 * @param anonymous what a request without a token may do while tokens exist: {@code none} or {@code read}
 * @param dashboard the dashboard's settings
 * @param queues the queues to open at start, by name, with their options; their payloads are UTF-8 text, as the
 *     command line's
 * @param limiters the limiters to create at start, by name
 * @param chains the chains of limiters to build at start, by name, each with its layers in order
 */
public record ServerConfig(
        String host,
        int port,
        String redis,
        List<Token> tokens,
        String anonymous,
        Dashboard dashboard,
        Map<String, QueueOptions> queues,
        Map<String, Limit> limiters,
        Map<String, List<Layer>> chains) {

    /** The interface a server listens on unless the file says otherwise: loopback. */
    public static final String DEFAULT_HOST = "127.0.0.1";

    /** The port unless the file says otherwise. */
    public static final int DEFAULT_PORT = 8080;

    private static final long MOST_FILE_BYTES = 1 << 20;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final String NAME_ALLOWED = "1 to 128 letters, digits and . _ - :";
    private static final Pattern URL = Pattern.compile("(redis|rediss|redis-socket|redis-sentinel)://.+");

    /** Copies the collections, keeping their order; they cannot be changed afterwards. */
    public ServerConfig {
        tokens = List.copyOf(tokens);
        queues = Collections.unmodifiableMap(new LinkedHashMap<>(queues));
        limiters = Collections.unmodifiableMap(new LinkedHashMap<>(limiters));
        Map<String, List<Layer>> copied = new LinkedHashMap<>();
        chains.forEach((name, layers) -> copied.put(name, List.copyOf(layers)));
        chains = Collections.unmodifiableMap(copied);
    }

    /**
     * An API token.
     *
     * @param name who holds it, for logs and {@code GET /api/v1/session}: 1 to 64 letters, digits and . _ - :
     * @param secret what the holder sends, at least 16 characters; never printed
     * @param scope what it may do: {@code read}, {@code operate} or {@code admin}
     */
    public record Token(String name, String secret, String scope) {
        /** The token with its secret left out. */
        @Override
        public String toString() {
            return "Token[name=" + name + ", secret=(redacted), scope=" + scope + "]";
        }
    }

    /**
     * The dashboard's settings.
     *
     * @param enabled whether it is served
     * @param title its title, at the top of the page and in the browser's tab
     */
    public record Dashboard(boolean enabled, String title) {}

    /**
     * A limiter to create.
     *
     * @param policy a rate policy, or a {@link ConcurrencyLimit}
     * @param options its options: the most keys it tracks in memory and what it answers while Redis is unavailable
     */
    public record Limit(LimitPolicy policy, LimiterOptions options) {}

    /**
     * One layer of a chain.
     *
     * @param limiter the name of a limiter of the file
     * @param key the key every request takes in this limiter (a global limit), or null for the request's own key
     */
    public record Layer(String limiter, String key) {}

    /**
     * Reads and checks {@code file}; {@code secretEnv} names are looked up in this process's environment.
     *
     * @param file a YAML file
     * @return the configuration
     * @throws IllegalArgumentException if the file cannot be read or is not a valid configuration; the message
     *     names the file, the key and the allowed values, in one line
     */
    public static ServerConfig load(Path file) {
        return load(file, System.getenv());
    }

    /**
     * Reads and checks {@code file}, looking {@code secretEnv} names up in {@code environment}.
     *
     * @param file a YAML file
     * @param environment the environment variables
     * @return the configuration
     * @throws IllegalArgumentException as {@link #load(Path)}
     */
    public static ServerConfig load(Path file, Map<String, String> environment) {
        String text;
        try {
            if (Files.size(file) > MOST_FILE_BYTES) {
                throw new IllegalArgumentException(file + ": larger than " + MOST_FILE_BYTES + " bytes, the most read");
            }
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot be read (" + e + ")", e);
        }
        return parse(text, file.toString(), environment);
    }

    /** The configuration {@code yaml} declares; {@code source} names it in messages. */
    static ServerConfig parse(String yaml, String source, Map<String, String> environment) {
        ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        ConfigNode root;
        try {
            root = ConfigNode.root(source, mapper.readTree(yaml));
        } catch (JsonProcessingException malformed) {
            throw notYaml(source, malformed);
        }
        root.only("server", "redis", "tokens", "anonymous", "dashboard", "queues", "limiters", "chains");
        ConfigNode server = root.get("server").only("host", "port");
        String host = server.get("host").text("a host name or address", DEFAULT_HOST);
        int port = (int) server.get("port").whole(0, 65_535, DEFAULT_PORT);
        String redis = root.get("redis").text("a Redis URL such as redis://localhost:6379", null);
        if (redis != null && !URL.matcher(redis).matches()) {
            throw root.get("redis").invalid("a Redis URL: redis://, rediss://, redis-socket:// or redis-sentinel://");
        }
        List<Token> tokens = tokens(root.get("tokens"), environment);
        if (tokens.isEmpty() && !loopback(host)) {
            throw server.get("host")
                    .problem("'" + host + "' is reachable from other hosts, and no tokens are"
                            + " declared: without tokens the server serves loopback only (127.0.0.1, ::1, localhost)");
        }
        String anonymous = root.get("anonymous").choice("none", "none", "read");
        ConfigNode dash = root.get("dashboard").only("enabled", "title");
        Dashboard dashboard =
                new Dashboard(dash.get("enabled").bool(true), dash.get("title").text("text", "Sluice"));
        Map<String, QueueOptions> queues = new LinkedHashMap<>();
        root.get("queues").entries().forEach((name, node) -> {
            named(node, name, "a queue");
            queues.put(name, QueueConfig.options(node));
        });
        Map<String, Limit> limiters = new LinkedHashMap<>();
        root.get("limiters").entries().forEach((name, node) -> {
            named(node, name, "a limiter");
            limiters.put(name, limit(node));
        });
        Map<String, List<Layer>> chains = new LinkedHashMap<>();
        root.get("chains").entries().forEach((name, node) -> {
            named(node, name, "a chain");
            if (limiters.containsKey(name)) {
                throw node.problem("'" + name + "' is a limiter's name already: limiters and chains are asked by"
                        + " name over the API, so their names must differ");
            }
            chains.put(name, layers(node, limiters));
        });
        return new ServerConfig(host, port, redis, tokens, anonymous, dashboard, queues, limiters, chains);
    }

    /** The problem of a file that is not YAML, in one line: where, and what the YAML parser expected there. */
    private static IllegalArgumentException notYaml(String source, JsonProcessingException malformed) {
        int line;
        int column;
        String problem;
        if (malformed.getCause() instanceof MarkedYAMLException yaml && yaml.getProblemMark() != null) {
            line = yaml.getProblemMark().getLine() + 1;
            column = yaml.getProblemMark().getColumn() + 1;
            problem = yaml.getProblem();
        } else {
            line = malformed.getLocation() == null ? 0 : malformed.getLocation().getLineNr();
            column = malformed.getLocation() == null
                    ? 0
                    : malformed.getLocation().getColumnNr();
            problem = malformed.getOriginalMessage();
        }
        return new IllegalArgumentException(source + ": line " + line + ", column " + column + ": not valid YAML: "
                + problem.strip().replaceAll("\\s*\\R\\s*", " "));
    }

    private static void named(ConfigNode node, String name, String what) {
        if (!NAME.matcher(name).matches()) {
            throw node.problem("'" + name + "' cannot name " + what + ": a name is " + NAME_ALLOWED);
        }
    }

    private static boolean loopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    private static List<Token> tokens(ConfigNode node, Map<String, String> environment) {
        List<Token> tokens = new ArrayList<>();
        Map<String, String> names = new HashMap<>();
        Map<String, String> secrets = new HashMap<>();
        for (ConfigNode item : node.items("tokens, each with name, secret (or secretEnv) and scope")) {
            item.only("name", "secret", "secretEnv", "scope");
            String name = item.get("name").requiredText("1 to 64 letters, digits and . _ - :");
            if (!name.matches("[A-Za-z0-9._:-]{1,64}")) {
                throw item.get("name").invalid("1 to 64 letters, digits and . _ - :");
            }
            String secret = secret(item, environment);
            item.get("scope").requiredText("one of read, operate, admin");
            String scope = item.get("scope").choice(null, "read", "operate", "admin");
            String earlier = names.putIfAbsent(name, item.path());
            if (earlier != null) {
                throw item.get("name")
                        .problem("'" + name + "' is given twice (" + earlier + " has it too): each"
                                + " token needs a name of its own");
            }
            earlier = secrets.putIfAbsent(secret, item.path());
            if (earlier != null) {
                throw item.problem("has the same secret as " + earlier + ": each token needs a secret of its own");
            }
            tokens.add(new Token(name, secret, scope));
        }
        return tokens;
    }

    /** The token's secret, written in the file or read from the environment; never shown in a message. */
    private static String secret(ConfigNode item, Map<String, String> environment) {
        ConfigNode written = item.get("secret");
        ConfigNode env = item.get("secretEnv");
        String secret;
        if (written.present() == env.present()) {
            throw item.problem("needs exactly one of secret (the secret itself) or secretEnv (the name of an"
                    + " environment variable holding it)");
        }
        if (written.present()) {
            if (!written.isText()) {
                throw written.problem("must be text (quote it)");
            }
            secret = written.text("text", null);
        } else {
            String variable = env.requiredText("the name of an environment variable");
            secret = environment.get(variable);
            if (secret == null || secret.isEmpty()) {
                throw env.problem("the environment variable " + variable + " is not set: set it to the token's"
                        + " secret before starting the server");
            }
        }
        if (secret.length() < 16 || secret.length() > 1024 || secret.strip().length() != secret.length()) {
            throw (written.present() ? written : env)
                    .problem("the secret must be 16 to 1024 characters without spaces at either end (it has "
                            + secret.length() + ")");
        }
        return secret;
    }

    private static Limit limit(ConfigNode node) {
        if (!node.isMapping()) {
            throw node.invalid("a mapping with the policy and its parameters");
        }
        LimitPolicy policy = Policies.limiter(node, "maxKeys", "whenUnavailable", "share");
        int maxKeys = (int) node.get("maxKeys").whole(1, 1 << 30, LimiterOptions.DEFAULT_MAX_KEYS);
        String when = node.get("whenUnavailable").choice("fail-closed", "fail-closed", "fail-open", "fall-back");
        ConfigNode share = node.get("share");
        if (share.present() != when.equals("fall-back")) {
            throw share.problem("share is needed with whenUnavailable: fall-back, and only then");
        }
        WhenUnavailable whenUnavailable = switch (when) {
            case "fail-open" -> WhenUnavailable.failOpen();
            case "fall-back" -> WhenUnavailable.fallBack(share.requiredNumber("a number above 0 and at most 1", 0, 1));
            default -> WhenUnavailable.failClosed();
        };
        return new Limit(
                policy,
                LimiterOptions.builder()
                        .maxKeys(maxKeys)
                        .whenUnavailable(whenUnavailable)
                        .build());
    }

    private static List<Layer> layers(ConfigNode node, Map<String, Limit> limiters) {
        String allowed = "limiter names (each layer takes the request's key), or {limiter: NAME, key: KEY} for a"
                + " layer whose key is always KEY";
        List<ConfigNode> items = node.items(allowed);
        if (items.isEmpty()) {
            throw node.invalid("a list of one or more " + allowed);
        }
        List<Layer> layers = new ArrayList<>();
        for (ConfigNode item : items) {
            ConfigNode name = item;
            String key = null;
            if (item.isMapping()) {
                item.only("limiter", "key");
                name = item.get("limiter");
                key = item.get("key").requiredText("the key of every request in this layer");
                if (key.isEmpty() || key.length() > NamedLimiter.MAX_KEY_LENGTH) {
                    throw item.get("key").invalid("1 to " + NamedLimiter.MAX_KEY_LENGTH + " characters");
                }
            }
            String limiter = name.requiredText(allowed);
            if (!limiters.containsKey(limiter)) {
                throw name.problem("names no limiter of the file: '" + limiter + "' (limiters: "
                        + (limiters.isEmpty() ? "none" : String.join(", ", limiters.keySet())) + ")");
            }
            layers.add(new Layer(limiter, key));
        }
        return layers;
    }

    /**
     * The file's tokens as the API checks them.
     *
     * @return {@link ApiTokens#none()} if the file declares none; else its tokens, and {@code anonymous}'s scope for
     *     requests without one
     */
    public ApiTokens apiTokens() {
        if (tokens.isEmpty()) {
            return ApiTokens.none();
        }
        ApiTokens.Builder builder = ApiTokens.builder().anonymous(anonymous.equals("read") ? Scope.READ : null);
        for (Token token : tokens) {
            builder.token(token.name(), token.secret(), Scope.named(token.scope()));
        }
        return builder.build();
    }

    /**
     * Opens what the file declares on {@code sluice}: its queues (created with their options if they do not exist;
     * on Redis, opening stores the options for every process), its limiters and its chains; and returns a builder of
     * the API with the file's tokens that serves those limiters and chains. {@link SluiceServer#builder(
     * SluiceApiServlet)} serves it, on the file's {@link #host()} and {@link #port()}.
     *
     * @param sluice the engine, which the caller keeps open while the API serves
     * @return the builder, to add to and build
     * @throws IllegalArgumentException if the engine refuses what the file declares: a limiter that exists with
     *     another policy, or a queue that exists with a codec other than UTF-8 text
     * @throws IllegalStateException if the engine is closed
     */
    public SluiceApiServlet.Builder open(Sluice sluice) {
        queues.forEach((name, options) -> sluice.queue(name, Codec.utf8(), options));
        SluiceApiServlet.Builder builder = SluiceApiServlet.builder(sluice).tokens(apiTokens());
        Map<String, NamedLimiter> made = new HashMap<>();
        limiters.forEach((name, limit) -> {
            NamedLimiter limiter = switch (limit.policy()) {
                case RatePolicy rate -> sluice.limiter(name, rate, limit.options());
                case ConcurrencyLimit concurrency -> sluice.concurrencyLimiter(name, concurrency, limit.options());
            };
            made.put(name, limiter);
            builder.limiter(limiter);
        });
        chains.forEach((name, layers) -> {
            LimitChain.Builder<String> chain = sluice.chain();
            for (Layer layer : layers) {
                if (layer.key() == null) {
                    chain.layer(made.get(layer.limiter()), key -> key);
                } else {
                    chain.layer(made.get(layer.limiter()), layer.key());
                }
            }
            builder.chain(name, chain.build());
        });
        return builder;
    }
}
