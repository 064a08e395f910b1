package dev.sluice.spring;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.ResolvableType;

/**
 * The keys Sluice reads, found from the records of {@link SluiceProperties}, for the message about a key it does
 * not read: the keys allowed where the unknown one stands, and the nearest of them.
 */
final class PropertyKeys {
    private PropertyKeys() {}

    /**
     * What is allowed where an unknown property stands.
     *
     * @param parent the property the unknown key is under, such as {@code sluice.limiters.api}
     * @param keys the keys allowed there, in kebab case, in their declared order; empty under a value that takes
     *     none
     * @param nearest the full name of the allowed property nearest to the unknown one by edit distance; null if
     *     none is allowed there
     */
    record Allowed(String parent, List<String> keys, String nearest) {}

    /** What is allowed where {@code unknown}, a property under {@code sluice}, stands. */
    static Allowed around(ConfigurationPropertyName unknown) {
        ResolvableType type = ResolvableType.forClass(SluiceProperties.class);
        int element = 1;
        while (element < unknown.getNumberOfElements()) {
            ResolvableType inner = inner(type, unknown, element);
            if (inner == null) {
                break;
            }
            type = inner;
            element++;
        }
        ConfigurationPropertyName parent = unknown.chop(element);
        List<String> keys = keys(type);
        if (keys.isEmpty() || element == unknown.getNumberOfElements()) {
            return new Allowed(parent.toString(), keys, null);
        }
        String given = unknown.getElement(element, ConfigurationPropertyName.Form.UNIFORM);
        String nearest = keys.stream()
                .min(Comparator.comparingInt(key -> distance(given, uniform(key))))
                .orElseThrow();
        return new Allowed(parent.toString(), keys, parent.append(nearest).toString());
    }

    /** The type that element {@code element} of {@code name} leads to from {@code type}; null if none. */
    private static ResolvableType inner(ResolvableType type, ConfigurationPropertyName name, int element) {
        Class<?> raw = type.resolve(Object.class);
        if (Map.class.isAssignableFrom(raw)) {
            return type.asMap().getGeneric(1);
        }
        if (List.class.isAssignableFrom(raw)) {
            return name.isNumericIndex(element) ? type.asCollection().getGeneric(0) : null;
        }
        if (!raw.isRecord()) {
            return null;
        }
        String given = name.getElement(element, ConfigurationPropertyName.Form.UNIFORM);
        for (RecordComponent component : raw.getRecordComponents()) {
            if (uniform(component.getName()).equals(given)) {
                return ResolvableType.forType(component.getGenericType());
            }
        }
        return null;
    }

    /** The keys a record's properties take, in kebab case; none for any other type. */
    private static List<String> keys(ResolvableType type) {
        Class<?> raw = type.resolve(Object.class);
        List<String> keys = new ArrayList<>();
        if (raw.isRecord()) {
            for (RecordComponent component : raw.getRecordComponents()) {
                keys.add(component
                        .getName()
                        .replaceAll("([a-z0-9])([A-Z])", "$1-$2")
                        .toLowerCase(Locale.ROOT));
            }
        }
        return keys;
    }

    /** A key as Spring Boot compares keys: lower case letters and digits only. */
    private static String uniform(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
    }

    /** The Levenshtein distance: the fewest insertions, deletions and substitutions that turn a into b. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
