package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.limit.FixedWindow;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.server.internal.Problem;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI file the server serves: valid OpenAPI 3.1, every operation it lists is served, every other method on
 * its paths is refused as not allowed, and every problem type the API answers is listed.
 */
class OpenApiTest {
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE");

    private final HttpClient http = HttpClient.newHttpClient();
    private Sluice sluice;
    private SluiceServer server;
    private String workerId;

    @BeforeEach
    void start() throws Exception {
        sluice = Sluice.inMemory();
        SluiceApiServlet api = SluiceApiServlet.builder(sluice)
                .limiter(sluice.limiter("lim", FixedWindow.of(10, Duration.ofMinutes(1))))
                .build();
        server = SluiceServer.builder(api).port(0).start();
    }

    private boolean workerTakesJobs() throws Exception {
        Reply worker = send("GET", "/api/v1/queues/mail/workers/" + workerId, null);
        return worker.statusCode() == 200
                && !new ObjectMapper().readTree(worker.body()).get("stopping").asBoolean();
    }

    /** Puts back what an earlier request removed: the queue, its job, a remote worker. */
    private void restore() throws Exception {
        JobQueue<String> mail = sluice.queue("mail", Codec.utf8());
        mail.add("welcome", "ada", JobOptions.builder().jobId("j1").build());
        mail.add(
                "welcome", "bob", JobOptions.builder().jobId("j2").group("acme").build());
        if (workerId == null || !workerTakesJobs()) {
            Reply registered = send("POST", "/api/v1/queues/mail/workers", "{\"name\":\"py\"}");
            workerId = new ObjectMapper()
                    .readTree(registered.body())
                    .get("workerId")
                    .asText();
        }
    }

    @AfterEach
    void stop() {
        server.close();
        sluice.close();
    }

    /** What one request answered; an event stream's body is left unread. */
    record Reply(int statusCode, HttpHeaders headers, String body) {}

    private Reply send(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(server.uri().resolve(path))
                .method(method, HttpRequest.BodyPublishers.ofString(body == null ? "" : body))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<InputStream> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (java.io.IOException e) {
            throw new java.io.IOException(method + " " + path + ": " + e.getMessage(), e);
        }
        String text;
        try (InputStream in = response.body()) {
            boolean stream =
                    response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
            text = stream ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return new Reply(response.statusCode(), response.headers(), text);
    }

    private OpenAPI served() throws Exception {
        Reply response = send("GET", "/api/v1/openapi.yaml", null);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/yaml");
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(response.body());
        assertThat(parsed.getMessages()).as("what the parser found wrong").isEmpty();
        return parsed.getOpenAPI();
    }

    /** The path with its parameters filled with things the server holds. */
    private String concrete(String template) {
        return template.replace("{queue}", "mail")
                .replace("{id}", "j1")
                .replace("{group}", "acme")
                .replace("{name}", "lim")
                .replace("{worker}", workerId)
                .replace("{token}", "no-such-lease");
    }

    /** Whether the answer says no route serves the request (as opposed to a route refusing what it names). */
    private static boolean noRoute(Reply response) throws Exception {
        if (response.statusCode() == 405) {
            return true;
        }
        if (response.statusCode() != 404) {
            return false;
        }
        JsonNode problem = new ObjectMapper().readTree(response.body());
        return problem.get("type").asText().equals("urn:sluice:problem:not-found")
                && problem.get("detail").asText().startsWith("no resource at");
    }

    @Test
    void isValidOpenApi31() throws Exception {
        OpenAPI api = served();

        assertThat(api.getOpenapi()).isEqualTo("3.1.0");
        assertThat(api.getPaths()).isNotEmpty();
    }

    @Test
    void everyOperationItListsIsServedAndNoOtherMethodOnItsPaths() throws Exception {
        List<String> unserved = new ArrayList<>();
        List<String> undocumented = new ArrayList<>();
        for (Map.Entry<String, PathItem> path : served().getPaths().entrySet()) {
            Map<PathItem.HttpMethod, ?> documented = path.getValue().readOperationsMap();
            for (String method : METHODS) {
                restore();
                Reply response = send(method, concrete(path.getKey()), "{}");
                boolean listed = documented.containsKey(PathItem.HttpMethod.valueOf(method));
                if (listed && noRoute(response)) {
                    unserved.add(method + " " + path.getKey() + " -> " + response.statusCode());
                }
                if (!listed && !noRoute(response)) {
                    undocumented.add(method + " " + path.getKey() + " -> " + response.statusCode());
                }
            }
        }

        assertThat(unserved).as("listed but not served").isEmpty();
        assertThat(undocumented).as("served but not listed").isEmpty();
    }

    /**
     * No route below a listed path is left out: each word the route classes match a path segment against, appended to
     * each listed path, is either a listed path or no route at all.
     */
    @Test
    void servesNoPathItDoesNotList() throws Exception {
        OpenAPI api = served();
        Set<String> words = new TreeSet<>();
        Pattern literal = Pattern.compile("(?:case|equals\\(|List\\.of\\()\\s*\"([a-z][a-z0-9.-]*)\"");
        for (String source : ROUTE_SOURCES) {
            Matcher matcher = literal.matcher(Files.readString(Path.of(source)));
            while (matcher.find()) {
                words.add(matcher.group(1));
            }
        }
        assertThat(words).as("words read from the route classes").contains("queues", "jobs", "claim", "acquire");
        List<String> unlisted = new ArrayList<>();
        for (String listed : api.getPaths().keySet()) {
            for (String word : words) {
                String candidate = listed + "/" + word;
                if (listedTemplates(api).stream()
                        .anyMatch(t -> t.matcher(candidate).matches())) {
                    continue; // a listed path, or a listed template's parameter taking the word as its value
                }
                restore();
                for (String method : List.of("GET", "POST", "PUT", "DELETE")) {
                    Reply response = send(method, concrete(candidate), "{}");
                    if (!noRoute(response) && response.statusCode() != 404) {
                        unlisted.add(method + " " + candidate + " -> " + response.statusCode());
                    }
                }
            }
        }

        assertThat(unlisted).as("served but not listed").isEmpty();
    }

    private static List<Pattern> listedTemplates(OpenAPI api) {
        return api.getPaths().keySet().stream()
                .map(path -> Pattern.compile(path.replaceAll("\\{[^}]+}", "[^/]+")))
                .toList();
    }

    private static final List<String> ROUTE_SOURCES = List.of(
            "src/main/java/dev/sluice/server/SluiceApiServlet.java",
            "src/main/java/dev/sluice/server/internal/QueueRoutes.java",
            "src/main/java/dev/sluice/server/internal/WorkerRoutes.java",
            "src/main/java/dev/sluice/server/internal/LimiterRoutes.java",
            "src/main/java/dev/sluice/server/internal/DashboardRoutes.java");

    @Test
    void listsEveryProblemTypeTheApiAnswers() throws Exception {
        Schema<?> problem = served().getComponents().getSchemas().get("Problem");
        List<Object> listed =
                new ArrayList<>(((Schema<?>) problem.getProperties().get("type")).getEnum());

        for (Problem.Kind kind : Problem.Kind.values()) {
            assertThat(listed).as("problem types").contains(Problem.typeOf(kind));
        }
    }
}
