package dev.sluice.limit;

/**
 * A policy of how often permits may be taken: every policy but {@link ConcurrencyLimit}, which bounds how many are
 * held at once. A queue's rate and a group's rate take a {@code RatePolicy}, so a concurrency limit given as a rate
 * does not compile: a queue has a concurrency of its own. A {@link RateLimiter} applies a rate policy; a
 * concurrency limit is a {@link ConcurrencyLimiter}'s.
 */
public sealed interface RatePolicy extends LimitPolicy
        permits TokenBucket, Gcra, FixedWindow, SlidingWindowCounter, SlidingWindowLog {}
