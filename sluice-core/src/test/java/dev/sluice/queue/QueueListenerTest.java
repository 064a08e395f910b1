package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QueueListenerTest {
    record Order(long id) {}

    @Test
    void noneIsTypedForAnyPayloadWithoutACastAndIsOneInstance() {
        QueueListener<Order> orders = QueueListener.none();
        QueueListener<String> texts = QueueListener.none();

        assertThat((Object) orders).isSameAs(texts);
        assertThat(orders).hasToString("QueueListener.none()");
    }

    @Test
    void noneIgnoresEveryEvent() {
        QueueListener<Order> none = QueueListener.none();
        assertThatCode(() -> {
                    none.onAdded(null);
                    none.onActive(null);
                    none.onProgress(null, 50);
                    none.onCompleted(null);
                    none.onRetrying(null, new RuntimeException(), Duration.ZERO);
                    none.onFailed(null);
                    none.onRateLimited(null, Result.Scope.GROUP, Duration.ZERO);
                    none.onRescheduled(null, Duration.ZERO);
                    none.onDrained();
                })
                .doesNotThrowAnyException();
    }
}
