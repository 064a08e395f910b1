package dev.sluice.internal.limit;

import dev.sluice.internal.adaptive.ControlSettings;
import dev.sluice.internal.adaptive.ControlState;
import dev.sluice.internal.adaptive.RateChange;
import dev.sluice.internal.adaptive.RateControl;
import dev.sluice.internal.adaptive.Signal;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.RateChange.Reason;
import dev.sluice.time.SluiceClock;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rate private to one queue, keyed by group: the queue asks under its own lock whether one start may go,
 * and takes the permit only once every other limit agreed, so a denial elsewhere burns nothing here. Not
 * thread-safe on its own: the queue's lock guards it.
 *
 * <p>An {@link AdaptiveRate} gives each key a rate of its own, moved by {@link RateControl} from the signals the queue
 * hears ({@link #signal}), and enforced as the ceiling's policy scaled to it. The most recently used {@code maxKeys}
 * keys keep what they learned; another starts again. After a key's pause by a rate-limited result, a rate that is not
 * adaptive ramps back up ({@link Recovery}); an adaptive one resumes at its cut rate and climbs by its rule. A key's
 * limiter state is re-expressed at the rate it runs at when a start next asks, as the Redis engine's limiter
 * re-expresses it.
 */
public final class QueueRate {
    private final String name;
    private final SluiceClock clock;
    private final KeyTable table;
    private final int maxKeys;
    private Algorithm algorithm;
    private RatePolicy policy;
    private ControlSettings settings;
    private Map<String, Control> controls;
    private final Map<String, Applied> applied;

    /** An adaptive key's control state, its last change told and how many of each reason were told. */
    private static final class Control {
        ControlState state;
        RateChange last;
        final EnumMap<Reason, Long> changes = new EnumMap<>(Reason.class);

        Control(ControlState state) {
            this.state = state;
        }
    }

    /** A key enforced at a rate other than the policy's first: the rate and the algorithm enforcing it. */
    private record Applied(double perSecond, Algorithm algorithm) {}

    /** A rate called {@code name} (for messages) under {@code policy}, holding up to {@code maxKeys} groups. */
    public QueueRate(String name, RatePolicy policy, SluiceClock clock, int maxKeys) {
        this.name = name;
        this.clock = clock;
        this.maxKeys = maxKeys;
        this.table = new KeyTable(name, maxKeys, LimiterListener.none(), clock.nanos());
        this.applied = lru(maxKeys);
        adopt(policy);
    }

    private void adopt(RatePolicy policy) {
        this.policy = policy;
        if (policy instanceof AdaptiveRate adaptive) {
            this.algorithm = Algorithm.of(name, adaptive.scaledTo(adaptive.start()), clock);
            this.settings = ControlSettings.of(adaptive);
            this.controls = lru(maxKeys);
        } else {
            this.algorithm = Algorithm.of(name, policy, clock);
            this.settings = null;
            this.controls = null;
        }
    }

    private static <V> Map<String, V> lru(int maxKeys) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > maxKeys;
            }
        };
    }

    /** Whether this rate is adaptive. */
    public boolean adaptive() {
        return settings != null;
    }

    /**
     * Moves {@code key}'s adaptive rate by {@code signal} at {@code now}; the change to tell, or null. Nothing for a
     * rate that is not adaptive.
     */
    public RateChange signal(String key, Signal signal, long now) {
        if (settings == null) {
            return null;
        }
        Control control = control(key, now);
        RateControl.Step step = RateControl.next(settings, control.state, signal, now);
        control.state = step.state();
        if (step.change() != null) {
            control.last = step.change();
            control.changes.merge(step.change().reason(), 1L, Long::sum);
        }
        return step.change();
    }

    /** The rate {@code key} runs at now, in permits per second: an adaptive key's own, else the policy's. */
    public double perSecond(String key) {
        if (settings == null) {
            return policy.perSecond();
        }
        Control control = controls.get(key);
        return control == null ? settings.start() : control.state.rate();
    }

    /** How many times {@code key}'s adaptive rate was cut; 0 if it is not adaptive. */
    public long cuts(String key) {
        Control control = controls == null ? null : controls.get(key);
        return control == null ? 0 : control.state.cuts();
    }

    /** How many changes of {@code key}'s adaptive rate were told, by reason; empty if none. */
    public Map<Reason, Long> changes(String key) {
        Control control = controls == null ? null : controls.get(key);
        return control == null ? Map.of() : Map.copyOf(control.changes);
    }

    /** The last change told of {@code key}'s adaptive rate; null if none. */
    public RateChange lastChange(String key) {
        Control control = controls == null ? null : controls.get(key);
        return control == null ? null : control.last;
    }

    private Control control(String key, long now) {
        Control control = controls.get(key);
        if (control == null) {
            control = new Control(RateControl.start(settings, now));
            controls.put(key, control);
        }
        return control;
    }

    /**
     * The algorithm enforcing {@code key}'s rate at {@code now}: its adaptive rate, or the policy's, times the ramp's
     * share after a pause that ended at {@code pausedUntil}. What the key owes under the algorithm it ran at last is
     * re-expressed under this one.
     */
    private Algorithm algorithmOf(String key, long now, long pausedUntil) {
        double first = settings == null ? policy.perSecond() : settings.start();
        double perSecond = perSecond(key) * recovery(pausedUntil, now);
        Applied last = applied.get(key);
        double lastPerSecond = last == null ? first : last.perSecond();
        Algorithm lastAlgorithm = last == null ? algorithm : last.algorithm();
        if (perSecond == lastPerSecond) {
            return lastAlgorithm;
        }
        Algorithm next = perSecond == first
                ? algorithm
                : Algorithm.of(name, Scaled.rate(policy, perSecond / policy.perSecond()), clock);
        table.adopt(key, next, lastAlgorithm, now);
        if (next == algorithm) {
            applied.remove(key);
        } else {
            applied.put(key, new Applied(perSecond, next));
        }
        return next;
    }

    /** The policy in force. */
    public RatePolicy policy() {
        return policy;
    }

    /** Whether {@code policy} can take over this rate's state ({@link #update}); else start a new rate. */
    public boolean canAdopt(RatePolicy policy) {
        if (policy instanceof AdaptiveRate || this.policy instanceof AdaptiveRate) {
            return policy.equals(this.policy); // an adaptive rate carries over only to itself, as on Redis
        }
        return policy.getClass() == this.policy.getClass();
    }

    /** Switches to {@code policy} of the same kind, keeping what each key has used. */
    public void update(RatePolicy policy) {
        if (policy.equals(this.policy)) {
            return;
        }
        Algorithm previous = algorithm;
        adopt(policy);
        table.adopt(algorithm, previous, clock.nanos());
        applied.clear(); // a key on a ramp starts it again from the new policy
    }

    /**
     * Nanoseconds until one permit for {@code key} may go, 0 if it may go now; takes nothing. {@code pausedUntil}: when
     * the key's last pause by a rate-limited result ended ({@link Long#MIN_VALUE}: never), for its ramp.
     */
    public long peek(String key, long now, long pausedUntil) {
        return decide(key, now, pausedUntil, false);
    }

    /** Takes one permit for {@code key} if it may go now (0), else returns the nanoseconds to wait; as {@link #peek}. */
    public long take(String key, long now, long pausedUntil) {
        return decide(key, now, pausedUntil, true);
    }

    private long decide(String key, long now, long pausedUntil, boolean take) {
        Decision decision = table.decide(key, algorithmOf(key, now, pausedUntil), now, 1, take, null, 0);
        if (decision.allowed()) {
            return 0;
        }
        long wait = decision.retryAfterNanos();
        return Math.max(1, settings == null ? Recovery.waitWithin(wait, pausedUntil, now) : wait);
    }

    /** The ramp's share after a pause; an adaptive rate has none, as its cut and climb are its ramp. */
    private double recovery(long pausedUntil, long now) {
        return settings == null ? Recovery.share(pausedUntil, now) : 1;
    }
}
