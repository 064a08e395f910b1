package dev.sluice.queue;

/**
 * One job of a bulk add.
 *
 * @param name what kind of job it is, 1 to {@value JobOptions#MAX_NAME_LENGTH} characters
 * @param payload its payload, which the queue's codec must be able to encode
 * @param options its options; unset values come from the queue's defaults
 * @param <T> the payload type
 */
public record NewJob<T>(String name, T payload, JobOptions options) {
    /**
     * A job with the queue's default options.
     *
     * @param name what kind of job it is, 1 to {@value JobOptions#MAX_NAME_LENGTH} characters
     * @param payload its payload, which the queue's codec must be able to encode
     * @throws IllegalArgumentException if the name is null, empty or too long
     */
    public NewJob(String name, T payload) {
        this(name, payload, JobOptions.empty());
    }

    /**
     * Validates: name well formed, options not null (the payload is checked by the codec when the job is
     * added).
     *
     * @throws IllegalArgumentException if the name is null, empty or too long, or the options are null
     */
    public NewJob {
        JobOptions.checkName("job name", name);
        if (options == null) {
            throw new IllegalArgumentException(
                    "options of job '" + name + "' must not be null; use JobOptions.empty()");
        }
    }

    /**
     * The job for people, without its payload (it may be large, or secret).
     *
     * @return for example {@code NewJob{name=email, options=JobOptions{delay=30 s}}}
     */
    @Override
    public String toString() {
        return new ToString("NewJob").add("name", name).add("options", options).toString();
    }
}
