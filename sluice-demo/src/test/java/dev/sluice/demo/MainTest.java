package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<Long> demos = new ArrayList<>();
    private final List<String> redisUrls = new ArrayList<>();
    private final List<OptionalInt> servePorts = new ArrayList<>();

    private int run(String... args) throws InterruptedException {
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl, serve) -> {
                    demos.add(seconds);
                    redisUrls.add(String.valueOf(redisUrl));
                    servePorts.add(serve);
                },
                start -> {
                    throw new AssertionError("no worker is to start");
                });
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpPrintsTheUsageOnStandardOutputAndSucceeds() throws InterruptedException {
        for (String help : new String[] {"--help", "-h", "help"}) {
            out.reset();
            assertThat(run(help)).as(help).isZero();
            assertThat(out()).startsWith("usage: ./sluice <command>").contains("demo [--seconds N]");
        }
        assertThat(run("demo", "--help")).isZero();
        assertThat(err()).isEmpty();
        assertThat(demos).isEmpty();
    }

    @Test
    void demoRunsForFifteenSecondsByDefaultOrTheSecondsGiven() throws InterruptedException {
        assertThat(run("demo")).isZero();
        assertThat(run("demo", "--seconds", "30")).isZero();
        assertThat(run("demo", "--seconds", "1")).isZero();
        assertThat(run("demo", "--seconds", "3600")).isZero();
        assertThat(demos).containsExactly(15L, 30L, 1L, 3600L);
        assertThat(redisUrls).as("in memory unless told").containsOnly("null");
        assertThat(servePorts).as("served only when told").containsOnly(OptionalInt.empty());
        assertThat(err()).isEmpty();
    }

    @Test
    void demoRunsThroughTheRedisItIsGiven() throws InterruptedException {
        assertThat(run("demo", "--redis", "redis://localhost:6379", "--seconds", "5"))
                .isZero();
        assertThat(demos).containsExactly(5L);
        assertThat(redisUrls).containsExactly("redis://localhost:6379");
        assertThat(run("demo", "--redis")).isEqualTo(Main.USAGE_ERROR);
        assertThat(err()).contains("--redis needs a value");
        assertThat(demos).hasSize(1);
    }

    @Test
    void demoServesOnThePortGivenOrServesDefault() throws InterruptedException {
        assertThat(run("demo", "--serve")).isZero();
        assertThat(run("demo", "--serve", "--port", "0", "--redis", "redis://localhost:6379"))
                .isZero();
        assertThat(run("demo", "--port", "9000", "--serve")).isZero();
        assertThat(servePorts)
                .containsExactly(OptionalInt.of(ServeCommand.DEFAULT_PORT), OptionalInt.of(0), OptionalInt.of(9000));
        assertThat(redisUrls).containsExactly("null", "redis://localhost:6379", "null");
        assertThat(err()).isEmpty();
    }

    @Test
    void aPortWithoutServeOrOutOfRangeIsAUsageErrorAndRunsNothing() throws InterruptedException {
        assertThat(run("demo", "--port", "9000")).isEqualTo(Main.USAGE_ERROR);
        assertThat(err())
                .isEqualTo("sluice: --port is the port of --serve, which is not given" + System.lineSeparator());
        err.reset();
        assertThat(run("demo", "--serve", "--port", "65536")).isEqualTo(Main.USAGE_ERROR);
        assertThat(err()).startsWith("sluice: --port must be a whole number from 0 to 65535, was '65536'");
        assertThat(demos).isEmpty();
    }

    @Test
    void anUnknownCommandIsNamedInOneLine() throws InterruptedException {
        assertThat(run("deom")).isEqualTo(Main.USAGE_ERROR);
        assertThat(err())
                .isEqualTo(
                        "sluice: unknown command 'deom' (commands: demo, produce, worker, serve, stats, queues, jobs, job,"
                                + " retry, remove, promote, pause, resume, clean, drain, obliterate, groups, workers, help)"
                                + System.lineSeparator());
        assertThat(out()).isEmpty();
        assertThat(demos).isEmpty();
    }

    @Test
    void noCommandPrintsTheUsageAndFails() throws InterruptedException {
        assertThat(run()).isEqualTo(Main.USAGE_ERROR);
        assertThat(err()).startsWith("usage: ./sluice <command>");
        assertThat(demos).isEmpty();
    }

    @Test
    void badDemoOptionsAreNamedAndRunNothing() throws InterruptedException {
        assertThat(run("demo", "--seconds")).isEqualTo(Main.USAGE_ERROR);
        assertThat(err()).startsWith("sluice: --seconds needs a value");
        err.reset();
        for (String bad : new String[] {"0", "3601", "ten", "-5", "1.5"}) {
            err.reset();
            assertThat(run("demo", "--seconds", bad)).as(bad).isEqualTo(Main.USAGE_ERROR);
            assertThat(err()).startsWith("sluice: --seconds must be a whole number from 1 to 3600, was '" + bad + "'");
        }
        err.reset();
        assertThat(run("demo", "--fast")).isEqualTo(Main.USAGE_ERROR);
        assertThat(err())
                .startsWith(
                        "sluice: unknown option '--fast' for demo (options: --seconds N, --redis URL, --serve, --port P)");
        assertThat(demos).isEmpty();
    }
}
