import ArgumentParser
import KilnCore

@main
struct Kiln: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiln",
        abstract: "A self-hosted CI server for Swift packages.",
        discussion: """
            Bots are YAML files in a bots directory (default: Bots/); each watches a git branch and \
            integrates it: checkout, swift build, swift test.

            Examples:
              kiln validate               # check every bot file in Bots/
              kiln validate Bots/app.yml  # check one file
              kiln serve                  # run the server on 127.0.0.1:8080
            """,
        version: KilnVersion.current,
        subcommands: [Serve.self, Run.self, Status.self, Trigger.self, Validate.self, Migrate.self]
    )
}
