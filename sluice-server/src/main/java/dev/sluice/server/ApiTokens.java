package dev.sluice.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Who may call Sluice's HTTP API: named secret tokens, each with a {@link Scope}, and what a request without a token
 * may do. Clients send a token as {@code Authorization: Bearer <secret>}; the dashboard exchanges one for a session
 * cookie. Secrets are kept only as SHA-256 digests, compared in constant time, and never logged or printed.
 *
 * <p>{@link #none()} means no authentication: every request may do everything. A {@link SluiceServer} then listens
 * on the loopback interface only.
 *
 * <pre>{@code
 * ApiTokens tokens = ApiTokens.builder()
 *     .token("ci", System.getenv("SLUICE_CI_TOKEN"), Scope.OPERATE)
 *     .anonymous(Scope.READ)
 *     .build();
 * }</pre>
 */
public final class ApiTokens {
    /** The shortest secret accepted: 16 characters. */
    public static final int SHORTEST_SECRET = 16;

    private static final ApiTokens NONE = new ApiTokens(List.of(), Scope.ADMIN);

    private final List<Token> tokens;
    private final Scope anonymous;

    private ApiTokens(List<Token> tokens, Scope anonymous) {
        this.tokens = tokens;
        this.anonymous = anonymous;
    }

    /**
     * No authentication: every request may do everything ({@link Scope#ADMIN}).
     *
     * @return the open policy, always the same
     */
    public static ApiTokens none() {
        return NONE;
    }

    /**
     * A builder of tokens; a request without a token may do nothing unless {@link Builder#anonymous} says otherwise.
     *
     * @return an empty builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether this is {@link #none()}: no token is needed for anything.
     *
     * @return true if no token is configured
     */
    public boolean isOpen() {
        return tokens.isEmpty();
    }

    /**
     * What a request without a token may do.
     *
     * @return the scope, or empty if such a request may do nothing
     */
    public Optional<Scope> anonymous() {
        return Optional.ofNullable(anonymous);
    }

    /**
     * The token whose secret is {@code secret}. Every configured token is compared, each in constant time, so the
     * time taken tells nothing of which secret came close.
     *
     * @param secret a secret a client sent; null finds none
     * @return the token's name and scope, or empty if no token has that secret
     */
    public Optional<Caller> find(String secret) {
        if (secret == null) {
            return Optional.empty();
        }
        byte[] digest = digest(secret);
        Token found = null;
        for (Token token : tokens) {
            if (MessageDigest.isEqual(token.digest, digest)) {
                found = token;
            }
        }
        return found == null ? Optional.empty() : Optional.of(new Caller(found.name, found.scope));
    }

    /**
     * A caller the API recognised.
     *
     * @param name the token's name, as the API's log of actions shows it; {@code anonymous} for a request without a
     *     token
     * @param scope what the caller may do
     */
    public record Caller(String name, Scope scope) {}

    private record Token(String name, byte[] digest, Scope scope) {}

    private static byte[] digest(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256, which every Java platform must have", e);
        }
    }

    /** Names the tokens and their scopes, never their secrets. */
    @Override
    public String toString() {
        if (isOpen()) {
            return "ApiTokens[none: every request may do everything]";
        }
        List<String> shown = new ArrayList<>();
        for (Token token : tokens) {
            shown.add(token.name + "=" + token.scope);
        }
        return "ApiTokens" + shown + ", anonymous=" + (anonymous == null ? "none" : anonymous);
    }

    /** How an {@link ApiTokens} is made. */
    public static final class Builder {
        private final List<Token> tokens = new ArrayList<>();
        private final Set<String> names = new HashSet<>();
        private final Set<String> secrets = new HashSet<>();
        private Scope anonymous;

        private Builder() {}

        /**
         * Adds a token.
         *
         * @param name how the token is named in the log of actions: 1 to 64 letters, digits, {@code . _ : -}; unique
         * @param secret what clients send: at least {@value ApiTokens#SHORTEST_SECRET} characters, unique
         * @param scope what a request with it may do
         * @return this builder
         * @throws IllegalArgumentException if the name or secret is malformed, too short or already used, or the
         *     scope is null (the message never contains the secret)
         */
        public Builder token(String name, String secret, Scope scope) {
            if (name == null || !name.matches("[A-Za-z0-9._:-]{1,64}")) {
                throw new IllegalArgumentException(
                        "a token's name must be 1 to 64 letters, digits, '.', '_', ':' or '-', was " + name);
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("two tokens are named '" + name + "'; names must be unique");
            }
            if (secret == null || secret.strip().length() < SHORTEST_SECRET) {
                throw new IllegalArgumentException("the secret of token '" + name + "' must be at least "
                        + SHORTEST_SECRET + " characters (not shown)");
            }
            if (!secrets.add(secret)) {
                throw new IllegalArgumentException(
                        "token '" + name + "' has the secret of another token; secrets must be unique");
            }
            if (scope == null) {
                throw new IllegalArgumentException("token '" + name + "' needs a scope: read, operate or admin");
            }
            tokens.add(new Token(name, digest(secret), scope));
            return this;
        }

        /**
         * What a request without a token may do.
         *
         * @param scope the scope, or null (the default) for nothing
         * @return this builder
         */
        public Builder anonymous(Scope scope) {
            this.anonymous = scope;
            return this;
        }

        /**
         * The tokens.
         *
         * @return the policy
         * @throws IllegalStateException if no token was added ({@link ApiTokens#none()} is the policy without tokens)
         */
        public ApiTokens build() {
            if (tokens.isEmpty()) {
                throw new IllegalStateException(
                        "no token was added; ApiTokens.none() is the policy without authentication");
            }
            return new ApiTokens(List.copyOf(tokens), anonymous);
        }
    }
}
