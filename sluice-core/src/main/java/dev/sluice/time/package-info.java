/**
 * Time, sleeping and delayed execution, injected so that tests run on virtual time.
 *
 * <p>Every engine reads its {@link dev.sluice.time.SluiceClock}, never the system clock. Production code uses
 * {@link dev.sluice.time.SluiceClock#system()}: the host's wall clock with nanosecond precision, never going
 * backwards. Tests use a {@link dev.sluice.time.ManualClock}: time moves only on {@code advance}, which runs
 * the tasks that fall due on the calling thread, and sleeping on it moves it forward at once. Readings are
 * nanoseconds since the Unix epoch; {@link dev.sluice.time.SluiceClock#toInstant} and {@link
 * dev.sluice.time.SluiceClock#toEpochNanos} convert. {@link dev.sluice.time.DurationText} writes durations for
 * people ({@code 2.5 s}, {@code 1 h 30 min}), as every message of Sluice's engines does.
 *
 * <p>Thread-safety: both clocks are safe for use by any number of threads.
 */
package dev.sluice.time;
