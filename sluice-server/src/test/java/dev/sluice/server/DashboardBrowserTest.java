package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}; nothing is
 * downloaded): jobs run while the page is open, and the page shows them, a group's 429 pause, and acts on them.
 */
class DashboardBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String QUEUE = "payments";
    private static final List<String> GROUPS = List.of("acme", "globex", "initech", "umbrella", "hooli", "carrier-x");

    @TempDir
    Path profile;

    private Sluice sluice;
    private SluiceServer server;
    private ScheduledExecutorService producer;
    private ChromeDriver browser;
    private final AtomicBoolean failBadCards = new AtomicBoolean(true);
    private final AtomicBoolean carrierSaid429 = new AtomicBoolean();

    @BeforeEach
    void start() {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!present && Boolean.getBoolean("sluice.skipBrowser")) {
            assumeTrue(false, "no chromium, and -Dsluice.skipBrowser=true says to skip");
        }
        assertThat(present)
                .as("the dashboard's browser test needs Debian's chromium and chromium-driver (apt-get install -y"
                        + " chromium chromium-driver; .ci/run installs them), or -Dsluice.skipBrowser=true")
                .isTrue();
        sluice = Sluice.inMemory();
        server = SluiceServer.builder(sluice).port(0).start();
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (producer != null) {
            producer.shutdownNow();
        }
        if (server != null) {
            server.close();
            sluice.close();
        }
    }

    /** Adds a dozen payments every quarter second, one in ten with a card that is declined. */
    private void produce(JobQueue<String> payments) {
        AtomicLong next = new AtomicLong();
        producer = Executors.newSingleThreadScheduledExecutor();
        producer.scheduleAtFixedRate(
                () -> {
                    for (int i = 0; i < 12; i++) {
                        long n = next.incrementAndGet();
                        String group = GROUPS.get((int) (n % GROUPS.size()));
                        String card = n % 10 == 3 ? "bad-card-" + n : "card-" + n;
                        payments.add(
                                "charge",
                                "{\"card\":\"" + card + "\",\"cents\":" + (n * 37 % 5000) + "}",
                                JobOptions.builder()
                                        .jobId("pay-" + n)
                                        .group(group)
                                        .attempts(1)
                                        .build());
                    }
                },
                0,
                250,
                TimeUnit.MILLISECONDS);
    }

    /** Charges a card: the carrier's first call answers 429 for ten minutes, declined cards fail. */
    private Result charge(Job<String> job) throws InterruptedException {
        if ("carrier-x".equals(job.group()) && carrierSaid429.compareAndSet(false, true)) {
            return Result.rateLimited(Result.Scope.GROUP, Duration.ofMinutes(10));
        }
        if (job.payload().contains("bad-card") && failBadCards.get()) {
            throw new IllegalStateException("card declined by the issuer");
        }
        Thread.sleep(ThreadLocalRandom.current().nextLong(40, 140)); // the work the job stands for
        return Result.done("{\"charged\":true}");
    }

    private ChromeDriver openBrowser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + profile.toAbsolutePath(),
                "--window-size=1400,900");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        // the driver's path is given, so Selenium Manager is not asked to find or fetch one
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        // the window's frame takes some of its 1400x900: grow it so the page itself is 1400x900
        List<?> inner = (List<?>) driver.executeScript("return [window.innerWidth, window.innerHeight]");
        driver.manage()
                .window()
                .setSize(new Dimension(
                        2 * 1400 - ((Number) inner.get(0)).intValue(), 2 * 900 - ((Number) inner.get(1)).intValue()));
        return driver;
    }

    private String text(String css) {
        return await().atMost(Duration.ofSeconds(10))
                .ignoreException(StaleElementReferenceException.class)
                .until(() -> browser.findElement(By.cssSelector(css)).getText(), t -> t != null);
    }

    private long number(String css) {
        return Long.parseLong(text(css).trim());
    }

    /** Clicks what {@code css} finds, again if a new snapshot redrew it in between. */
    private void click(String css) {
        await().atMost(Duration.ofSeconds(10))
                .ignoreException(StaleElementReferenceException.class)
                .ignoreException(org.openqa.selenium.NoSuchElementException.class)
                .until(() -> {
                    WebElement element = browser.findElement(By.cssSelector(css));
                    element.click();
                    return true;
                });
    }

    private String chartPixels() {
        return (String) ((JavascriptExecutor) browser)
                .executeScript("return document.querySelector('#throughput-chart canvas').toDataURL()");
    }

    @Test
    void showsJobsRunA429PauseAndItsReleaseAndRetriesAFailedJob() throws Exception {
        JobQueue<String> payments = sluice.queue(QUEUE, Codec.utf8());
        payments.worker(ctx -> charge(ctx.job()), WorkerOptions.concurrency(4));
        produce(payments);
        browser = openBrowser();

        browser.get(server.uri().toString());

        String row = "#queues tr[data-queue='" + QUEUE + "']";
        await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> number(row + " .c-completed") > 0);
        assertThat(browser.getCurrentUrl()).endsWith("/dashboard/");
        assertThat(text("#live")).isEqualTo("live");
        long completed = number(row + " .c-completed");
        String pixels = chartPixels();
        await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> number(row + " .c-completed") > completed
                        && !chartPixels().equals(pixels));

        String carrier = "#groups tr[data-group='carrier-x']";
        await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> text(carrier + " .c-word").startsWith("rate-limited until"));
        // a few seconds of traffic on the charts before the picture
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> number(row + " .c-completed") > 250 && number(row + " .c-failed") > 10);
        Path screenshot = Path.of(System.getProperty("sluice.dashboard.screenshot", "target/dashboard.png"));
        Files.createDirectories(screenshot.toAbsolutePath().getParent());
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), screenshot, java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        click(carrier + " button[data-action='resume-group']");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            GroupInfo group = payments.groups("carrier-x", null, 1).get(0);
            return group.pausedUntil() == null
                    || !group.pausedUntil().isAfter(sluice.clock().instant());
        });
        await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> !text(carrier + " .c-word").startsWith("rate-limited"));

        failBadCards.set(false);
        click("#states button[data-state='failed']");
        String firstFailed = "#jobs tbody tr[data-job]";
        String id = await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> browser.findElement(By.cssSelector(firstFailed)).getAttribute("data-job"), j -> j != null);
        click("#jobs tbody tr[data-job='" + id + "']");
        assertThat(text("#job .failure")).contains("card declined by the issuer", "at ");
        assertThat(text("#job .payload")).contains("bad-card");
        click("#job button[data-action='retry']");
        await().atMost(Duration.ofSeconds(15))
                .until(() -> payments.job(id).map(Job::state).orElse(null) == JobState.COMPLETED);
        producer.shutdownNow();
        click("#states button[data-action='retry-failed']");
        browser.switchTo().alert().accept();
        await().atMost(Duration.ofSeconds(20)).until(() -> payments.counts().failed() == 0);

        List<String> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
        assertThat(errors).isEmpty();
        assertThat(Files.size(screenshot)).isPositive();
    }

    @Test
    void withoutATokenThePageIsReadOnlyAndATokenUnlocksItsActions() throws Exception {
        server.close();
        String secret = "operator-secret-0123456789";
        ApiTokens tokens = ApiTokens.builder()
                .token("ops", secret, Scope.OPERATE)
                .anonymous(Scope.READ)
                .build();
        server = SluiceServer.builder(
                        SluiceApiServlet.builder(sluice).tokens(tokens).build())
                .port(0)
                .start();
        JobQueue<String> payments = sluice.queue(QUEUE, Codec.utf8());
        payments.add(
                "charge", "{}", JobOptions.builder().jobId("p1").group("acme").build());
        browser = openBrowser();

        browser.get(server.uri().toString());

        String row = "#queues tr[data-queue='" + QUEUE + "']";
        await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> number(row + " .c-waiting") == 1);
        assertThat(text("#access")).isEqualTo("anonymous · read (read-only)");
        assertThat(browser.findElements(By.cssSelector(row + " button"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("#groups button"))).isEmpty();
        assertThat(browser.findElement(By.id("token-form")).isDisplayed()).isTrue();

        browser.findElement(By.id("token")).sendKeys(secret);
        click("#token-form button[type='submit']");
        await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> text("#access").equals("ops · operate"));
        click(row + " button[data-action='pause-queue']");

        await().atMost(Duration.ofSeconds(10)).until(payments::isPaused);
        List<String> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
        assertThat(errors).isEmpty();
    }

    @Test
    void underABasePathAndWithoutServerSentEventsThePagePolls() throws Exception {
        JobQueue<String> payments = sluice.queue(QUEUE, Codec.utf8());
        payments.worker(ctx -> charge(ctx.job()), WorkerOptions.concurrency(4));
        produce(payments);
        // as a host application might mount them: below a base path, the API servlet not async-supported
        Server host = new Server();
        ServerConnector connector = new ServerConnector(host);
        connector.setHost("127.0.0.1");
        host.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/ops");
        ServletHolder api = new ServletHolder(new SluiceApiServlet(sluice));
        api.setAsyncSupported(false);
        context.addServlet(api, "/sluice/*");
        context.addServlet(new ServletHolder(new SluiceDashboardServlet()), "/sluice/dashboard/*");
        host.setHandler(context);
        host.start();
        try {
            browser = openBrowser();

            browser.get("http://127.0.0.1:" + connector.getLocalPort() + "/ops/sluice/dashboard");

            String completed = "#queues tr[data-queue='" + QUEUE + "'] .c-completed";
            await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> number(completed) > 0);
            assertThat(text("#live")).isEqualTo("polling");
            long before = number(completed);
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> number(completed) > before);
            List<String> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                    .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                    .map(LogEntry::getMessage)
                    // the refused stream is what sends the page to polling
                    .filter(message -> !message.contains("/api/v1/dashboard/events"))
                    .toList();
            assertThat(errors).isEmpty();
        } finally {
            browser.quit();
            browser = null;
            host.stop();
        }
    }
}
