package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.http.ClientAddressResolver;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRule;
import dev.sluice.http.RequestKey;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/** Builds the {@link IngressLimiter} of {@code sluice.http}, checking each rule's properties. */
final class IngressRules {
    private static final String KEYS = "client-address, header:NAME or principal";

    private IngressRules() {}

    static IngressLimiter build(Sluice sluice, SluiceRegistry registry, SluiceProperties.Http http) {
        ClientAddressResolver.Builder addresses = ClientAddressResolver.builder();
        each("sluice.http.trusted-proxies", http.trustedProxies(), addresses::trustedProxies);
        addresses.forwardedHeader(forwardedHeader(http.forwardedHeader()));
        IngressLimiter.Builder ingress = IngressLimiter.builder(sluice)
                .clientAddresses(addresses.build())
                .legacyHeaders(http.legacyHeaders());
        for (int i = 0; i < http.rules().size(); i++) {
            IngressRule rule =
                    rule("sluice.http.rules[" + i + "].", http.rules().get(i), registry);
            Declarations.core("sluice.http.rules[" + i + "].name", rule.name(), () -> ingress.rule(rule));
        }
        return ingress.build();
    }

    private static ClientAddressResolver.ForwardedHeader forwardedHeader(String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "x-forwarded-for" -> ClientAddressResolver.ForwardedHeader.X_FORWARDED_FOR;
            case "forwarded" -> ClientAddressResolver.ForwardedHeader.FORWARDED;
            default ->
                throw new SluicePropertyException(
                        "sluice.http.forwarded-header",
                        value,
                        "not a forwarding header Sluice reads",
                        "x-forwarded-for or forwarded");
        };
    }

    private static IngressRule rule(String prefix, SluiceProperties.Rule rule, SluiceRegistry registry) {
        if (rule.name() == null) {
            throw new SluicePropertyException(
                    prefix + "name", null, "every rule needs a name", "a name of 1 to 64 letters, digits or . _ - :");
        }
        IngressRule.Builder builder =
                Declarations.core(prefix + "name", rule.name(), () -> IngressRule.named(rule.name()));
        each(prefix + "paths", rule.paths(), builder::paths);
        each(prefix + "methods", rule.methods(), builder::methods);
        each(prefix + "exempt", rule.exempt(), builder::exempt);
        if (rule.key() != null) {
            builder.keyedBy(key(prefix + "key", rule.key()));
        }
        if (rule.cost() != null) {
            builder.cost(Declarations.atLeastOne(prefix + "cost", rule.cost()));
        }
        if (rule.limits().isEmpty()) {
            throw new SluicePropertyException(
                    prefix + "limits", null, "a rule needs at least one limit", declared(registry));
        }
        for (int j = 0; j < rule.limits().size(); j++) {
            String name = rule.limits().get(j);
            if (!registry.limiters().containsKey(name)) {
                throw new SluicePropertyException(
                        prefix + "limits[" + j + "]", name, "no limiter of that name is declared", declared(registry));
            }
            Declarations.core(prefix + "limits[" + j + "]", name, () -> builder.limit(registry.limiter(name)));
        }
        return Declarations.core(prefix + "cost", rule.cost(), builder::build);
    }

    /** Gives each element of the list {@code property} to {@code add}, a refusal naming the element's index. */
    private static void each(String property, List<String> values, Consumer<String> add) {
        for (int i = 0; i < values.size(); i++) {
            String value = values.get(i);
            Declarations.core(property + "[" + i + "]", value, () -> {
                add.accept(value);
                return value;
            });
        }
    }

    private static String declared(SluiceRegistry registry) {
        return registry.limiters().isEmpty()
                ? "names of limiters declared under sluice.limiters (none is)"
                : "names of limiters declared under sluice.limiters: "
                        + String.join(", ", registry.limiters().keySet());
    }

    private static RequestKey key(String property, String value) {
        String text = value.strip();
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.equals("client-address")) {
            return RequestKey.clientAddress();
        }
        if (lower.equals("principal")) {
            return RequestKey.principal();
        }
        if (lower.startsWith("header:") && text.length() > "header:".length()) {
            return Declarations.core(property, value, () -> RequestKey.header(text.substring("header:".length())));
        }
        throw new SluicePropertyException(property, value, "not a request key", KEYS);
    }
}
