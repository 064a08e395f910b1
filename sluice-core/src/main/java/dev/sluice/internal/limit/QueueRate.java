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
import dev.sluice.time.SluiceClock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rate private to one queue, keyed by group: the queue asks under its own lock whether one start may go,
 * and takes the permit only once every other limit agreed, so a denial elsewhere burns nothing here. Not
 * thread-safe on its own: the queue's lock guards it.
 *
 * <p>An {@link AdaptiveRate} gives each key a rate of its own, moved by {@link RateControl} from the signals the queue
 * hears ({@link #signal}), and enforced as the ceiling's policy scaled to it. The most recently used {@code maxKeys}
 * keys keep what they learned; another starts again.
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

    /** An adaptive key's control state and the algorithm enforcing its rate. */
    private static final class Control {
        ControlState state;
        Algorithm algorithm;
        RateChange last;

        Control(ControlState state, Algorithm algorithm) {
            this.state = state;
            this.algorithm = algorithm;
        }
    }

    /** A rate called {@code name} (for messages) under {@code policy}, holding up to {@code maxKeys} groups. */
    public QueueRate(String name, RatePolicy policy, SluiceClock clock, int maxKeys) {
        this.name = name;
        this.clock = clock;
        this.maxKeys = maxKeys;
        this.table = new KeyTable(name, maxKeys, LimiterListener.none(), clock.nanos());
        adopt(policy);
    }

    private void adopt(RatePolicy policy) {
        this.policy = policy;
        if (policy instanceof AdaptiveRate adaptive) {
            this.algorithm = Algorithm.of(name, adaptive.scaledTo(adaptive.start()), clock);
            this.settings = ControlSettings.of(adaptive);
            this.controls = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Control> eldest) {
                    return size() > maxKeys;
                }
            };
        } else {
            this.algorithm = Algorithm.of(name, policy, clock);
            this.settings = null;
            this.controls = null;
        }
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
        double before = control.state.rate();
        control.state = step.state();
        if (step.state().rate() != before) {
            // what the key owes is owed at the new rate, as the Redis engine's limiter re-expresses it
            Algorithm previous = control.algorithm;
            control.algorithm = Algorithm.of(
                    name, ((AdaptiveRate) policy).scaledTo(step.state().rate()), clock);
            table.adopt(key, control.algorithm, previous, now);
        }
        if (step.change() != null) {
            control.last = step.change();
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

    /** The last change told of {@code key}'s adaptive rate; null if none. */
    public RateChange lastChange(String key) {
        Control control = controls == null ? null : controls.get(key);
        return control == null ? null : control.last;
    }

    private Control control(String key, long now) {
        Control control = controls.get(key);
        if (control == null) {
            control = new Control(RateControl.start(settings, now), algorithm);
            controls.put(key, control);
        }
        return control;
    }

    private Algorithm algorithmOf(String key) {
        if (controls == null) {
            return algorithm;
        }
        Control control = controls.get(key);
        return control == null ? algorithm : control.algorithm;
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
    }

    /** Nanoseconds until one permit for {@code key} may go, 0 if it may go now; takes nothing. */
    public long peek(String key, long now) {
        return nanosToWait(table.decide(key, algorithmOf(key), now, 1, false, null, 0));
    }

    /** Takes one permit for {@code key} if it may go now (0), else returns the nanoseconds to wait. */
    public long take(String key, long now) {
        return nanosToWait(table.decide(key, algorithmOf(key), now, 1, true, null, 0));
    }

    private static long nanosToWait(Decision decision) {
        return decision.allowed() ? 0 : Math.max(1, decision.retryAfterNanos());
    }
}
