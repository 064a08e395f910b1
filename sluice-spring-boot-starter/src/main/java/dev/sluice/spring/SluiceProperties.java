package dev.sluice.spring;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Sluice's settings under {@code sluice.*}, as bound from the application's configuration. Binding checks the
 * types (a number is a number, a duration a duration) and refuses a key Sluice does not read, such as a misspelled
 * one (environment variables and system properties excepted, as Spring Boot does); what the values mean is checked
 * when the beans are made. A bad key or value stops the startup with one message naming the property, what was
 * wrong and what to do. Immutable.
 *
 * @param redis the Redis engine: used when {@code sluice.redis.url} is set, or when the application has a Lettuce
 *     {@code RedisClient} bean
 * @param limiters the limiters to open, by name (1 to 128 letters, digits or {@code . _ - :}; a name with a dot
 *     is written in brackets, {@code "[api.v1]"})
 * @param queues the queues to open, by name; their payloads are UTF-8 strings ({@code Codec.utf8()})
 * @param http the ingress filter of a servlet web application
 * @param metrics the Micrometer meters, bound when the application has a {@code MeterRegistry}
 * @param shutdown how the workers of declared queues close when the application stops
 * @param annotations Sluice's annotations on the application's beans
 * @param dashboard Sluice's HTTP API and dashboard, served by the application's servlet container
 */
@ConfigurationProperties(prefix = "sluice", ignoreUnknownFields = false)
public record SluiceProperties(
        @DefaultValue Redis redis,
        Map<String, Limiter> limiters,
        Map<String, Queue> queues,
        @DefaultValue Http http,
        @DefaultValue Metrics metrics,
        @DefaultValue Shutdown shutdown,
        @DefaultValue Annotations annotations,
        @DefaultValue Dashboard dashboard) {

    /** Replaces absent maps with empty ones. */
    public SluiceProperties {
        limiters = limiters == null ? Map.of() : Map.copyOf(limiters);
        queues = queues == null ? Map.of() : Map.copyOf(queues);
    }

    /**
     * The Redis engine.
     *
     * @param enabled whether a Lettuce {@code RedisClient} bean of the application is used when no URL is set;
     *     false keeps the engine in memory unless {@code url} is set
     * @param url a {@code redis://}, {@code rediss://} or {@code redis-sentinel://} URL: the engine opens its own
     *     connection to it
     * @param keyPrefix the start of every key the engine writes: engines with different prefixes share nothing
     * @param commandTimeout the longest a call waits for Redis (1 ms to 1 minute)
     */
    public record Redis(
            @DefaultValue("true") boolean enabled,
            String url,
            @DefaultValue("sluice") String keyPrefix,
            @DefaultValue("500ms") Duration commandTimeout) {}

    /**
     * A limiter: its policy and how it treats its keys.
     *
     * @param policy token-bucket, fixed-window, sliding-window-log, sliding-window-counter, gcra or concurrency
     * @param limit the most permits: a window's limit, a bucket's capacity, GCRA's rate per period, or the most
     *     held at once
     * @param window the window of fixed-window, sliding-window-log and sliding-window-counter
     * @param period the refill period of token-bucket, and the period of GCRA's rate
     * @param refill the tokens a token bucket gets back per period; its limit unless set
     * @param burst the most permits GCRA lets go at once; its limit unless set
     * @param leaseTimeout how long a concurrency lease lasts unless released; 1 minute unless set
     * @param whenUnavailable what a limiter of a shared engine answers while the engine cannot be reached:
     *     fail-closed (the default), fail-open, or fall-back:SHARE (SHARE above 0 and at most 1)
     * @param maxKeys the most keys the in-memory engine tracks for this limiter (100,000 unless set)
     */
    public record Limiter(
            String policy,
            Long limit,
            Duration window,
            Duration period,
            Long refill,
            Long burst,
            Duration leaseTimeout,
            String whenUnavailable,
            Integer maxKeys) {}

    /**
     * A rate of a queue or of its groups: how often jobs may start.
     *
     * @param policy token-bucket, fixed-window, sliding-window-log, sliding-window-counter or gcra
     * @param limit as {@link Limiter#limit()}
     * @param window as {@link Limiter#window()}
     * @param period as {@link Limiter#period()}
     * @param refill as {@link Limiter#refill()}
     * @param burst as {@link Limiter#burst()}
     * @param adaptive when set, the rate is an {@link dev.sluice.limit.AdaptiveRate} with this policy as its ceiling
     */
    public record Rate(
            String policy, Long limit, Duration window, Duration period, Long refill, Long burst, Adaptive adaptive) {}

    /**
     * What makes a rate adaptive ({@link dev.sluice.limit.AdaptiveRate}): any of these set, or {@code enabled=true}
     * for the defaults.
     *
     * @param enabled {@code false} to turn the adaptive rate off while keeping its settings; on when any is set
     * @param floor the least the rate may be, in jobs per second (a hundredth of the ceiling unless set)
     * @param start the rate before any signal, in jobs per second (the ceiling unless set)
     * @param cut what a cut leaves of the rate, above 0 and below 1 (0.85 unless set)
     * @param climb how long the rate takes to climb back after a cut (3 s unless set)
     */
    public record Adaptive(Boolean enabled, Double floor, Double start, Double cut, Duration climb) {}

    /**
     * A queue, and the worker this application runs on it.
     *
     * @param rate how often the queue's jobs may start, over all workers; none unless set
     * @param concurrency how many of the queue's jobs may run at once, over all workers; no bound unless set
     * @param maxQueued the most jobs waiting or delayed at once (1,000,000 unless set)
     * @param group the limits of every group that has none of its own
     * @param worker the worker this application runs; none unless {@code worker.processor} is set
     * @param jobDefaults the options of every job of the queue that does not set them itself
     * @param repeat the repeatable jobs registered on the queue at start, for queues of strings
     */
    public record Queue(
            Rate rate,
            Integer concurrency,
            Integer maxQueued,
            Group group,
            Worker worker,
            JobDefaults jobDefaults,
            List<Repeat> repeat) {

        /** Replaces an absent list with an empty one. */
        public Queue {
            repeat = repeat == null ? List.of() : List.copyOf(repeat);
        }
    }

    /**
     * The options of a queue's jobs that do not set them; what is unset here is Sluice's default.
     *
     * @param attempts how many times a job runs before it fails for good (1 unless set)
     * @param backoff the wait before each retry (none unless set)
     * @param timeout the longest an attempt may run (none unless set)
     * @param keepCompleted how many completed jobs are kept, and how long (the last 1,000 unless set)
     * @param keepFailed how many failed jobs are kept, and how long (the last 10,000 unless set)
     */
    public record JobDefaults(
            Integer attempts, Backoff backoff, Duration timeout, Keep keepCompleted, Keep keepFailed) {}

    /**
     * The wait before each retry of a job.
     *
     * @param type none, fixed, exponential or exponential-with-jitter
     * @param delay the wait of fixed, and the first wait of the exponential types
     * @param max the longest wait of the exponential types
     */
    public record Backoff(String type, Duration delay, Duration max) {}

    /**
     * How many finished jobs are kept, and how long.
     *
     * @param count the most kept, the newest; no bound unless set
     * @param age the longest one is kept after it finished; no bound unless set
     */
    public record Keep(Integer count, Duration age) {}

    /**
     * A repeatable job: a job added on a schedule. Registering it again at the next start keeps its state.
     *
     * @param id the repeatable job's id in its queue
     * @param cron when it runs, as a cron expression of five fields (minute hour day-of-month month
     *     day-of-week), or six with seconds first: {@code 0 3 * * *} is every day at 03:00; or else
     * @param every how often it runs, a fixed rate such as {@code 10m}
     * @param zone the time zone of {@code cron}, such as {@code Europe/Paris}; UTC unless set
     * @param job the name of each job it adds
     * @param payload the payload of each job it adds; empty unless set
     */
    public record Repeat(String id, String cron, Duration every, String zone, String job, String payload) {}

    /**
     * The default limits of a queue's groups (tenants).
     *
     * @param rate how often one group's jobs may start; none unless set
     * @param concurrency how many of one group's jobs may run at once; no bound unless set
     * @param maxQueued how many of one group's jobs may wait at once; no bound unless set
     */
    public record Group(Rate rate, Integer concurrency, Integer maxQueued) {}

    /**
     * A worker of a declared queue. It starts with the application context and closes on its shutdown.
     *
     * @param processor the name of the application's {@code dev.sluice.queue.Processor<String>} bean that runs
     *     each job
     * @param concurrency how many jobs the worker runs at once (1 unless set)
     * @param leaseTime how long a job's lease lasts between renewals (30 s unless set; 1 s to 1 day)
     * @param maxStalls how many stalls a job survives (1 unless set)
     */
    public record Worker(String processor, Integer concurrency, Duration leaseTime, Integer maxStalls) {}

    /**
     * The ingress filter of a servlet web application.
     *
     * @param enabled whether the filter is registered
     * @param trustedProxies addresses or CIDR blocks of the proxies whose forwarding headers are believed
     * @param forwardedHeader the header trusted proxies write: x-forwarded-for or forwarded
     * @param legacyHeaders whether responses also carry X-RateLimit-Limit, -Remaining and -Reset
     * @param filterOrder the filter's order among the servlet filters; 0, after Spring Security's, so that rules
     *     keyed by principal see the authenticated user
     * @param rules the rules, tried in order: the first whose paths and methods match applies
     */
    public record Http(
            @DefaultValue("true") boolean enabled,
            List<String> trustedProxies,
            @DefaultValue("x-forwarded-for") String forwardedHeader,
            @DefaultValue("false") boolean legacyHeaders,
            @DefaultValue("0") int filterOrder,
            List<Rule> rules) {

        /** Replaces absent lists with empty ones. */
        public Http {
            trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
            rules = rules == null ? List.of() : List.copyOf(rules);
        }
    }

    /**
     * An ingress rule.
     *
     * @param name the rule's name, in the problem body of a 429
     * @param paths path patterns such as {@code /api/**}; every path unless set
     * @param methods HTTP methods; every method unless set
     * @param key what the limits are keyed by: client-address (the default), header:NAME or principal
     * @param limits names of declared limiters, taken all or nothing; at least one
     * @param cost the permits each request takes of each limit (1 unless set)
     * @param exempt addresses or CIDR blocks of clients the rule does not limit
     */
    public record Rule(
            String name,
            List<String> paths,
            List<String> methods,
            String key,
            List<String> limits,
            Long cost,
            List<String> exempt) {

        /** Replaces absent lists with empty ones. */
        public Rule {
            paths = paths == null ? List.of() : List.copyOf(paths);
            methods = methods == null ? List.of() : List.copyOf(methods);
            limits = limits == null ? List.of() : List.copyOf(limits);
            exempt = exempt == null ? List.of() : List.copyOf(exempt);
        }
    }

    /**
     * The Micrometer meters of every limiter and queue of the engine.
     *
     * @param enabled whether the engine is bound to the application's meter registries
     * @param percentiles the percentiles timers publish (0.5, 0.9 and 0.99 unless set)
     * @param percentileHistogram whether timers publish histogram buckets that Prometheus can add up
     * @param groups the groups that get meters of their own
     * @param busiestGroups how many other groups of each queue get meters: the busiest
     * @param tags tags on every meter
     */
    public record Metrics(
            @DefaultValue("true") boolean enabled,
            List<Double> percentiles,
            @DefaultValue("false") boolean percentileHistogram,
            List<String> groups,
            @DefaultValue("0") int busiestGroups,
            Map<String, String> tags) {

        /** Replaces absent lists and maps with empty ones. */
        public Metrics {
            percentiles = percentiles == null ? null : List.copyOf(percentiles);
            groups = groups == null ? List.of() : List.copyOf(groups);
            tags = tags == null ? Map.of() : Map.copyOf(tags);
        }
    }

    /**
     * How the workers close.
     *
     * @param deadline how long running jobs may go on once the application stops, then they go back to waiting;
     *     keep it below {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default)
     */
    public record Shutdown(@DefaultValue("20s") Duration deadline) {}

    /**
     * Sluice's annotations on the application's beans.
     *
     * @param enabled whether they are applied: {@code @RateLimited} methods are limited
     */
    public record Annotations(@DefaultValue("true") boolean enabled) {}

    /**
     * Sluice's HTTP API and its dashboard, mounted in a servlet web application that has {@code sluice-server}.
     *
     * @param enabled whether Sluice's HTTP API and dashboard are mounted in the application's servlet container;
     *     off unless set, because the API can change and remove every queue
     * @param path where the API and the dashboard are mounted below the application's context path, {@code /sluice}
     *     unless set: the API at {@code PATH/api/v1/}, the dashboard at {@code PATH/dashboard/}
     * @param tokens the API tokens; none unless set, and then every request that reaches the path may do
     *     everything, so the application's own security must guard the path
     * @param anonymous what a request without a token may do while tokens are set: {@code none} (the default) or
     *     {@code read}
     */
    public record Dashboard(
            @DefaultValue("false") boolean enabled,
            @DefaultValue("/sluice") String path,
            List<Token> tokens,
            @DefaultValue("none") String anonymous) {

        /** Replaces an absent list with an empty one. */
        public Dashboard {
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
        }
    }

    /**
     * An API token: clients send its secret as {@code Authorization: Bearer SECRET}, the dashboard's token form
     * takes it too.
     *
     * @param name how the token is named in the log of actions: 1 to 64 letters, digits, {@code . _ : -}; unique
     * @param secret what clients send: at least 16 characters, unique; write {@code ${AN_ENVIRONMENT_VARIABLE}}
     *     rather than the secret itself
     * @param scope what a request with it may do: read, operate or admin
     */
    public record Token(String name, String secret, String scope) {
        /** Names the token and its scope, never its secret. */
        @Override
        public String toString() {
            return "Token[name=" + name + ", scope=" + scope + "]";
        }
    }
}
