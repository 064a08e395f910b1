package dev.sluice.testkit;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Hands a suite nested in a {@link QueueContract} or {@link RateLimiterContract} its engine hooks before each test:
 * the enclosing contract's {@code newEngine} and its other hooks are the suite's, so that a nested suite needs no
 * code of its own.
 */
final class EnclosingContract implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
        if (context.getRequiredTestInstances().getInnermostInstance() instanceof ContractSupport suite) {
            for (Object outer : context.getRequiredTestInstances().getEnclosingInstances()) {
                if (outer instanceof QueueContract || outer instanceof RateLimiterContract) {
                    suite.enclosing = outer;
                }
            }
        }
    }
}
