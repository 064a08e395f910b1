package dev.sluice.jackson;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import java.io.IOException;

/**
 * What was wrong with a document Jackson could not read or write, in one line: Jackson's reason, then the property
 * path and the line and column when Jackson knows them. The reason is cut at {@value #MAX_REASON} characters
 * because Jackson quotes the value it could not read, and a value can be as long as the document.
 */
final class JsonProblems {
    static final int MAX_REASON = 300;

    private JsonProblems() {}

    static String describe(IOException e) {
        if (!(e instanceof JsonProcessingException problem)) {
            return shorten(String.valueOf(e));
        }
        StringBuilder text = new StringBuilder(shorten(problem.getOriginalMessage()));
        if (problem instanceof JsonMappingException mapping
                && !mapping.getPath().isEmpty()) {
            text.append(" at ").append(path(mapping));
        }
        JsonLocation location = problem.getLocation();
        if (location != null && location.getLineNr() > 0) {
            text.append(" (line ")
                    .append(location.getLineNr())
                    .append(", column ")
                    .append(location.getColumnNr())
                    .append(')');
        }
        return text.toString();
    }

    /** The path from the document's root, for example {@code $.lines[2].sku}. */
    private static String path(JsonMappingException mapping) {
        StringBuilder path = new StringBuilder("$");
        for (JsonMappingException.Reference step : mapping.getPath()) {
            if (step.getFieldName() != null) {
                path.append('.').append(step.getFieldName());
            } else if (step.getIndex() >= 0) {
                path.append('[').append(step.getIndex()).append(']');
            } else {
                path.append("[?]");
            }
        }
        return path.toString();
    }

    private static String shorten(String reason) {
        String line = reason == null
                ? "no reason given"
                : reason.replaceAll("\\s+", " ").strip();
        return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON) + "...";
    }
}
