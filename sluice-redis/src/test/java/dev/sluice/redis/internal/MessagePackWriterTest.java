package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Java packs is what the queue library's {@code cmsgpack} packs, byte for byte, at every boundary of every
 * form: a record joined from both reads as if Lua had packed it whole.
 */
class MessagePackWriterTest {
    /** Packs ARGV as typed by their first letter: i an integer, s a string, f false, a an empty array. */
    private static final String PACK_IN_LUA = """
            local out = {}
            for _, v in ipairs(ARGV) do
              local kind, rest = v:sub(1, 1), v:sub(2)
              if kind == 'i' then out[#out + 1] = cmsgpack.pack(tonumber(rest))
              elseif kind == 's' then out[#out + 1] = cmsgpack.pack(rest)
              elseif kind == 'f' then out[#out + 1] = cmsgpack.pack(false)
              else out[#out + 1] = cmsgpack.pack({}) end
            end
            return table.concat(out)
            """;

    private static final long[] INTEGERS = {
        0,
        1,
        127,
        128,
        255,
        256,
        65_535,
        65_536,
        4_294_967_295L,
        4_294_967_296L,
        1_765_000_000_000_000L,
        4_503_599_627_370_496L,
        -1,
        -31,
        -32,
        -33,
        -127,
        -128,
        -129,
        -32_767,
        -32_768,
        -32_769,
        -2_147_483_648L,
        -2_147_483_649L,
        -4_503_599_627_370_496L
    };

    private static final int[] STRING_LENGTHS = {0, 1, 31, 32, 255, 256, 65_535, 65_536};

    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(RedisServer.shared().uri());
        connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
    }

    @Test
    void integersAtEveryBoundaryOfTheirForms() {
        MessagePackWriter java = new MessagePackWriter();
        String[] typed = new String[INTEGERS.length];
        for (int i = 0; i < INTEGERS.length; i++) {
            java.integer(INTEGERS[i]);
            typed[i] = "i" + INTEGERS[i];
        }

        assertThat(java.toBytes()).isEqualTo(packedInLua(typed));
    }

    @Test
    void stringsAtEveryBoundaryOfTheirLengthsFalseAndTheEmptyArray() {
        MessagePackWriter java = new MessagePackWriter().falseValue().array(0);
        String[] typed = new String[STRING_LENGTHS.length + 2];
        typed[0] = "f";
        typed[1] = "a";
        for (int i = 0; i < STRING_LENGTHS.length; i++) {
            String s = "é".repeat(STRING_LENGTHS[i] / 2) + "x".repeat(STRING_LENGTHS[i] % 2);
            java.string(s.getBytes(StandardCharsets.UTF_8));
            typed[i + 2] = "s" + s;
        }

        assertThat(java.toBytes()).isEqualTo(packedInLua(typed));
    }

    @Test
    void arrayHeadersAreReadBackWithTheirValues() {
        for (int n : new int[] {0, 15, 16, 34, 65_535, 65_536}) {
            MessagePackWriter out = new MessagePackWriter().array(n);
            for (int i = 0; i < n; i++) {
                out.integer(i % 200);
            }

            List<?> read = (List<?>) MessagePack.decode(out.toBytes());

            assertThat(read).as("an array of %d", n).hasSize(n);
            if (n > 0) {
                assertThat(read.get(n - 1)).isEqualTo((long) ((n - 1) % 200));
            }
        }
    }

    private static byte[] packedInLua(String... typed) {
        byte[][] args = new byte[typed.length][];
        for (int i = 0; i < typed.length; i++) {
            args[i] = typed[i].getBytes(StandardCharsets.UTF_8);
        }
        return connection
                .sync()
                .eval(PACK_IN_LUA.getBytes(StandardCharsets.UTF_8), ScriptOutputType.VALUE, new byte[0][], args);
    }
}
