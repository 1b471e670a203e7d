package com.fairpix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CliArgumentsTest {
    @Test
    void aSpecGivenAsAtFileReachesTheCommandAsItsNameNotAsTheFilesWords(@TempDir Path dir) throws Exception {
        Path spec = dir.resolve("spec.json");
        Files.writeString(spec, "{\"variants\":{\"t\":[{\"op\":\"resize\",\"width\":128},{\"op\":\"encode\",\"format\":\"webp\"}]}}");
        CommandLine.ParseResult parsed = Fairpix.commandLine().parseArgs("submit", "photo.jpg", "--tenant-key", "k", "--spec", "@" + spec);
        SubmitCommand submit = (SubmitCommand) parsed.subcommand().commandSpec().userObject();
        assertThat(submit.jobSpec).isEqualTo("@" + spec);
    }
}
