package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the starter names a Redis whose URL holds a password: as the engine does, so one message names it one way. */
class RedisUnreachableExceptionTest {
    @Test
    void aUrlIsShownAsTheEngineShowsItWithThePasswordMasked() {
        assertThat(RedisUnreachableException.withoutPassword("redis://:s3cret@10.0.0.5:6380/2"))
                .isEqualTo("redis://******@10.0.0.5:6380/2");
        assertThat(RedisUnreachableException.withoutPassword("redis://ada:s3cret@10.0.0.5:6380"))
                .isEqualTo("redis://ada:******@10.0.0.5:6380");
        assertThat(RedisUnreachableException.withoutPassword("redis://10.0.0.5:6380"))
                .isEqualTo("redis://10.0.0.5:6380");
    }

    @Test
    void aUrlLettuceCannotReadKeepsItsFormWithThePasswordMaskedAlike() {
        assertThat(RedisUnreachableException.withoutPassword("redis://ada:s3cret@host:99999"))
                .isEqualTo("redis://ada:******@host:99999");
        assertThat(RedisUnreachableException.withoutPassword("redis://:s3cret@host:99999"))
                .isEqualTo("redis://******@host:99999");
    }
}
