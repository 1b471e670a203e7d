package com.fairpix.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** Tenant API keys: shape, offline checksum, hashing and uniqueness. */
class ApiKeysTest {
    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    @Test
    void keyIsPrefixThen33RandomThen6ChecksumBase62Characters() {
        String key = ApiKeys.generate();

        assertThat(key).startsWith("fpk_").hasSize(4 + 33 + 6);
        assertThat(key.substring(4)).matches("[0-9A-Za-z]{39}");
    }

    @RepeatedTest(20)
    void generatedKeyLooksValid() {
        assertThat(ApiKeys.looksValid(ApiKeys.generate())).isTrue();
    }

    @Test
    void changingAnyOneCharacterMakesTheKeyLookInvalid() {
        String key = ApiKeys.generate();
        for (int i = 0; i < key.length(); i++) {
            char original = key.charAt(i);
            // Two replacements per position: the next base62 character, and one far away in the alphabet.
            for (int step : new int[] {1, 31}) {
                int at = BASE62.indexOf(original);
                char replacement = at < 0 ? (original == 'f' ? 'g' : 'f') : BASE62.charAt((at + step) % 62);
                String typo = key.substring(0, i) + replacement + key.substring(i + 1);
                assertThat(ApiKeys.looksValid(typo)).as("%s with position %d changed to %s", key, i, replacement).isFalse();
            }
        }
    }

    @Test
    void swappingTwoAdjacentCharactersIsDetected() {
        String key = ApiKeys.generate();
        for (int i = 4; i < key.length() - 1; i++) {
            if (key.charAt(i) == key.charAt(i + 1)) continue;
            String swapped = key.substring(0, i) + key.charAt(i + 1) + key.charAt(i) + key.substring(i + 2);
            assertThat(ApiKeys.looksValid(swapped)).as("swap at %d", i).isFalse();
        }
    }

    @Test
    void keysOfTheWrongShapeAreRefused() {
        String key = ApiKeys.generate();

        assertThat(ApiKeys.looksValid(null)).isFalse();
        assertThat(ApiKeys.looksValid("")).isFalse();
        assertThat(ApiKeys.looksValid(key.substring(0, key.length() - 1))).as("one character short").isFalse();
        assertThat(ApiKeys.looksValid(key + "0")).as("one character long").isFalse();
        assertThat(ApiKeys.looksValid("FPK_" + key.substring(4))).as("prefix is case-sensitive").isFalse();
        assertThat(ApiKeys.looksValid("ghp_" + key.substring(4))).as("another vendor's prefix").isFalse();
        assertThat(ApiKeys.looksValid(" " + key.substring(1))).isFalse();
        assertThat(ApiKeys.looksValid("fpk_" + "-".repeat(33) + key.substring(37))).as("non-base62 body").isFalse();
    }

    @Test
    void hashIsLowerCaseHexSha256AndStable() {
        String key = ApiKeys.generate();

        String hash = ApiKeys.hash(key);

        assertThat(hash).hasSize(64).matches("[0-9a-f]{64}");
        assertThat(ApiKeys.hash(key)).isEqualTo(hash);
        assertThat(ApiKeys.hash(ApiKeys.generate())).isNotEqualTo(hash);
        // FIPS 180-2 test vector: the hash is plain SHA-256 of the UTF-8 key, nothing salted or truncated.
        assertThat(ApiKeys.hash("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void thousandGeneratedKeysAreAllDistinctAndSoAreTheirHashes() {
        Set<String> keys = new HashSet<>();
        Set<String> hashes = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String key = ApiKeys.generate();
            keys.add(key);
            hashes.add(ApiKeys.hash(key));
        }

        assertThat(keys).hasSize(1000);
        assertThat(hashes).hasSize(1000);
    }

    @Test
    void randomPartUsesTheWholeAlphabet() {
        // 33 characters x 300 keys: every one of the 62 characters shows up unless the generator is skewed.
        Set<Character> seen = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            String key = ApiKeys.generate();
            for (char c : key.substring(4, 37).toCharArray()) seen.add(c);
        }

        assertThat(seen).hasSize(62);
    }
}
