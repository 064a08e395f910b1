package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ApiTokensTest {
    private static final String SECRET = "a-secret-of-enough-length";

    @Test
    void findsATokenBySecretAndNothingByAnyOtherText() {
        ApiTokens tokens = ApiTokens.builder()
                .token("ci", SECRET, Scope.OPERATE)
                .token("ops", SECRET + "-2", Scope.ADMIN)
                .build();

        assertThat(tokens.find(SECRET)).hasValue(new ApiTokens.Caller("ci", Scope.OPERATE));
        assertThat(tokens.find(SECRET + "-2")).hasValue(new ApiTokens.Caller("ops", Scope.ADMIN));
        assertThat(tokens.find(SECRET.substring(1))).isEmpty();
        assertThat(tokens.find(null)).isEmpty();
        assertThat(tokens.isOpen()).isFalse();
        assertThat(tokens.anonymous()).isEmpty();
    }

    @Test
    void noneIsOpenAndMayDoEverything() {
        assertThat(ApiTokens.none().isOpen()).isTrue();
        assertThat(ApiTokens.none().anonymous()).hasValue(Scope.ADMIN);
    }

    @Test
    void refusesMalformedTokensWithoutShowingTheSecret() {
        assertThatThrownBy(() -> ApiTokens.builder().token("ci", "short", Scope.READ))
                .hasMessageContaining("at least 16 characters")
                .hasMessageNotContaining("short");
        assertThatThrownBy(() -> ApiTokens.builder().token("has space", SECRET, Scope.READ))
                .hasMessageContaining("letters, digits");
        assertThatThrownBy(() ->
                        ApiTokens.builder().token("ci", SECRET, Scope.READ).token("ci", SECRET + "x", Scope.READ))
                .hasMessageContaining("two tokens are named 'ci'");
        assertThatThrownBy(
                        () -> ApiTokens.builder().token("a", SECRET, Scope.READ).token("b", SECRET, Scope.READ))
                .hasMessageContaining("secret of another token")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> ApiTokens.builder().token("ci", SECRET, null)).hasMessageContaining("needs a scope");
        assertThatThrownBy(() -> ApiTokens.builder().build()).hasMessageContaining("ApiTokens.none()");
    }

    @Test
    void showsNamesAndScopesButNeverSecrets() {
        ApiTokens tokens = ApiTokens.builder()
                .token("ci", SECRET, Scope.OPERATE)
                .anonymous(Scope.READ)
                .build();

        assertThat(tokens.toString()).contains("ci=operate", "anonymous=read").doesNotContain(SECRET);
    }

    @Test
    void scopesIncludeNarrowerOnesAndAreNamedInAnyCase() {
        assertThat(Scope.ADMIN.includes(Scope.OPERATE)).isTrue();
        assertThat(Scope.OPERATE.includes(Scope.OPERATE)).isTrue();
        assertThat(Scope.OPERATE.includes(Scope.ADMIN)).isFalse();
        assertThat(Scope.READ.includes(Scope.OPERATE)).isFalse();
        assertThat(Scope.named(" Operate ")).isEqualTo(Scope.OPERATE);
        assertThatThrownBy(() -> Scope.named("root"))
                .hasMessageContaining("read, operate, admin")
                .hasMessageContaining("root");
        assertThatThrownBy(() -> Scope.named(null)).hasMessageContaining("read, operate, admin");
    }
}
