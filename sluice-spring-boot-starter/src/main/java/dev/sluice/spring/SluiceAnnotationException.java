package dev.sluice.spring;

import java.io.Serializable;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Sluice annotations that cannot be applied as written, such as a {@link RateLimited} naming no limiter: each
 * problem names where the annotation stands, what is wrong and what to do. {@link SluiceFailureAnalyzer} turns it
 * into the startup failure's message.
 */
final class SluiceAnnotationException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * One annotation that cannot be applied.
     *
     * @param where the annotation and what it stands on, such as {@code @RateLimited("api") on Reports.daily(String)}
     * @param problem what is wrong, a clause
     * @param action what to do, a sentence
     */
    record Problem(String where, String problem, String action) implements Serializable {}

    private final List<Problem> problems;

    SluiceAnnotationException(List<Problem> problems) {
        super(problems.stream()
                .map(p -> p.where() + ": " + p.problem() + ". " + p.action())
                .collect(Collectors.joining(" ")));
        this.problems = List.copyOf(problems);
    }

    /** One problem: {@code where}, {@code problem} and {@code action} as {@link Problem} has them. */
    static SluiceAnnotationException of(String where, String problem, String action) {
        return new SluiceAnnotationException(List.of(new Problem(where, problem, action)));
    }

    /** Every problem, in the order found. */
    List<Problem> problems() {
        return problems;
    }

    /** What is wrong, one sentence per problem. */
    String description() {
        return problems.stream()
                .map(p -> "Sluice cannot apply " + p.where() + ": " + p.problem() + ".")
                .collect(Collectors.joining(System.lineSeparator()));
    }

    /** What to do, one sentence per problem, each said once. */
    String action() {
        return problems.stream().map(Problem::action).distinct().collect(Collectors.joining(" "));
    }
}
