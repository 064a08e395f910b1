package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Processor beans made workers by {@link SluiceWorker}, on the in-memory engine. */
class SluiceWorkerTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
            .withPropertyValues("sluice.shutdown.deadline=1s");

    /** A confirmation of an order, a record sent as JSON. */
    record Order(String id, int quantity) {}

    /** A point, stored by a codec of the application's own. */
    record Point(int x, int y) {}

    @SluiceWorker(queue = "greetings", concurrency = 3)
    static class Greeter implements Processor<String> {
        final List<String> greeted = new CopyOnWriteArrayList<>();

        @Override
        public Result process(dev.sluice.queue.JobContext<String> job) {
            greeted.add(job.payload());
            return Result.done();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Workers {
        static final List<Order> CONFIRMED = new CopyOnWriteArrayList<>();
        static final List<Point> PLOTTED = new CopyOnWriteArrayList<>();

        @Bean
        Greeter greeter() {
            return new Greeter();
        }

        @Bean
        @SluiceWorker(queue = "orders")
        Processor<Order> confirmations() {
            return job -> {
                CONFIRMED.add(job.payload());
                return Result.done();
            };
        }

        @Bean
        @SluiceWorker(queue = "points", codec = "pointCodec")
        Processor<Point> plotter() {
            return job -> {
                PLOTTED.add(job.payload());
                return Result.done();
            };
        }

        @Bean
        Codec<Point> pointCodec() {
            return Codec.of("point", p -> (p.x() + "," + p.y()).getBytes(StandardCharsets.UTF_8), bytes -> {
                String[] xy = new String(bytes, StandardCharsets.UTF_8).split(",");
                return new Point(Integer.parseInt(xy[0]), Integer.parseInt(xy[1]));
            });
        }
    }

    @Test
    void runsAnAnnotatedStringProcessorFoundByItsTypeWithItsConcurrencyUntilTheContextCloses() {
        runner.withUserConfiguration(Workers.class).run(context -> {
            Greeter greeter = context.getBean(Greeter.class);
            SluiceWorkers workers = context.getBean(SluiceWorkers.class);

            JobQueue<String> greetings = context.getBean(SluiceRegistry.class).queue("greetings");
            String id = greetings.add("hello", "ada").job().id();

            await().atMost(Duration.ofSeconds(10)).until(() -> greeter.greeted.contains("ada"));
            assertThat(greetings.payloadBytes(id)).hasValue("ada".getBytes(StandardCharsets.UTF_8));
            assertThat(workers.running())
                    .anySatisfy(w -> assertThat(w.toString()).contains("greetings", "concurrency 3"));
            context.close();
            assertThat(workers.isRunning()).isFalse();
        });
    }

    @Test
    void runsARecordProcessorOnAJsonQueueWithTheOptionsDeclaredInProperties() {
        runner.withUserConfiguration(Workers.class)
                .withPropertyValues("sluice.queues.orders.concurrency=7")
                .run(context -> {
                    JobQueue<Order> orders =
                            context.getBean(SluiceRegistry.class).queue("orders", Order.class);
                    Order order = new Order("o-" + System.nanoTime(), 3);

                    String id = orders.add("confirm", order).job().id();

                    await().atMost(Duration.ofSeconds(10)).until(() -> Workers.CONFIRMED.contains(order));
                    assertThat(orders.options().concurrency()).isEqualTo(7);
                    assertThat(new String(orders.payloadBytes(id).orElseThrow(), StandardCharsets.UTF_8))
                            .isEqualTo("{\"id\":\"" + order.id() + "\",\"quantity\":3}");
                    assertThatThrownBy(
                                    () -> context.getBean(SluiceRegistry.class).queue("orders"))
                            .hasMessage("queue 'orders' carries " + Order.class.getTypeName() + " payloads, not"
                                    + " java.lang.String; ask for queue(\"orders\", Order.class)");
                });
    }

    @Test
    void storesPayloadsWithTheCodecBeanTheAnnotationNames() {
        runner.withUserConfiguration(Workers.class).run(context -> {
            JobQueue<Point> points = context.getBean(SluiceRegistry.class).queue("points", Point.class);
            Point point = new Point(3, (int) (System.nanoTime() % 1000));

            String id = points.add("plot", point).job().id();

            await().atMost(Duration.ofSeconds(10)).until(() -> Workers.PLOTTED.contains(point));
            assertThat(new String(points.payloadBytes(id).orElseThrow(), StandardCharsets.UTF_8))
                    .isEqualTo("3," + point.y());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> points.job(id).orElseThrow().state() == JobState.COMPLETED);
        });
    }

    @Test
    void stopsTheStartSayingWhatToAddWhenNoCodecStoresARecord() {
        FailureAnalysis analysis = SluiceFailureAnalyzerTest.analysisOf(runner.withUserConfiguration(Workers.class)
                .withClassLoader(new FilteredClassLoader("dev.sluice.jackson")));

        assertThat(analysis.getDescription())
                .isEqualTo("Sluice cannot apply @SluiceWorker(queue = \"orders\") on bean 'confirmations': no codec"
                        + " stores " + Order.class.getName() + " payloads: JSON needs dev.sluice:sluice-jackson,"
                        + " which is not on the class path.");
        assertThat(analysis.getAction())
                .isEqualTo("Add dev.sluice:sluice-jackson to the application's dependencies, or define a"
                        + " Codec<SluiceWorkerTest.Order> bean and name it in @SluiceWorker(codec = \"...\").");
    }

    @Test
    void stopsTheStartNamingAProcessorWithoutAPayloadTypeAndACodecBeanThatIsMissing() {
        FailureAnalysis analysis = SluiceFailureAnalyzerTest.analysisOf(runner.withUserConfiguration(Mistakes.class));

        assertThat(analysis.getDescription())
                .contains("Sluice cannot apply @SluiceWorker(queue = \"raw\") on bean 'raw': its payload type cannot"
                        + " be read from the bean's type.")
                .contains("Sluice cannot apply @SluiceWorker(queue = \"notAProcessor\") on bean 'notAProcessor':"
                        + " the bean is not a dev.sluice.queue.Processor.");
    }

    @Test
    void runsNoAnnotatedWorkerWhenAnnotationsAreOff() {
        runner.withUserConfiguration(Workers.class)
                .withPropertyValues("sluice.annotations.enabled=false")
                .run(context -> {
                    assertThat(context.getBean(SluiceWorkers.class).running()).isEmpty();
                    assertThat(context.getBean(SluiceRegistry.class).queues()).isEmpty();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Mistakes {
        @Bean
        @SuppressWarnings("rawtypes")
        @SluiceWorker(queue = "raw")
        Processor raw() {
            return job -> Result.done();
        }

        @Bean
        @SluiceWorker(queue = "notAProcessor")
        String notAProcessor() {
            return "not a processor";
        }
    }
}
