package dev.sluice.limit;

import java.util.Arrays;

/**
 * What a limiter answers while its engine cannot be reached (Redis down, or slower than the engine's command
 * timeout). The in-memory engine is never unavailable and ignores this option.
 *
 * <p>Every answer given this way says so in {@link Decision#basis()}, and the limiter's listener hears when
 * the engine became unavailable and when it came back ({@link LimiterListener#onUnavailable}, {@link
 * LimiterListener#onRecovered}). Recovery needs no restart: the engine tries again by itself.
 *
 * @param action what to do
 * @param share for {@link Action#FALL_BACK}, the share of the policy's limit this process may use on its own,
 *     above 0 and at most 1 (with 4 processes sharing a limit, 0.25 keeps the total within the limit); 1
 *     for the other actions
 */
public record WhenUnavailable(Action action, double share) {
    private static final WhenUnavailable FAIL_CLOSED = new WhenUnavailable(Action.DENY, 1);
    private static final WhenUnavailable FAIL_OPEN = new WhenUnavailable(Action.ALLOW, 1);

    /** What a limiter does with a request while its engine is unavailable. */
    public enum Action {
        /** Deny every request: the limit is never exceeded, and nothing goes through. */
        DENY,
        /** Allow every request: nothing is held up, and nothing is limited. */
        ALLOW,
        /**
         * Decide with a limiter in this process that holds {@link WhenUnavailable#share()} of the policy's
         * limit; its state starts full and is dropped when the engine is back.
         */
        FALL_BACK
    }

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public WhenUnavailable {
        if (action == null) {
            throw new IllegalArgumentException(
                    "action must be one of " + Arrays.toString(Action.values()) + ", was null");
        }
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be above 0 and at most 1, was " + share);
        }
        if (action != Action.FALL_BACK && share != 1) {
            throw new IllegalArgumentException("share applies only to FALL_BACK; " + action + " needs 1, was " + share);
        }
    }

    /**
     * Deny while the engine is unavailable (the default).
     *
     * @return the fail-closed answer
     */
    public static WhenUnavailable failClosed() {
        return FAIL_CLOSED;
    }

    /**
     * Allow while the engine is unavailable.
     *
     * @return the fail-open answer
     */
    public static WhenUnavailable failOpen() {
        return FAIL_OPEN;
    }

    /**
     * Decide with an in-memory limiter holding {@code share} of the limit while the engine is unavailable.
     *
     * @param share above 0 and at most 1: typically 1 / the number of processes sharing the limit
     * @return the fall-back answer
     * @throws IllegalArgumentException if the share is out of range
     */
    public static WhenUnavailable fallBack(double share) {
        return new WhenUnavailable(Action.FALL_BACK, share);
    }
}
