import KilnCore
import Testing

@Suite("performance.benchmarks and visibility in bot files")
struct BenchmarkSettingsTests {
    @Test("benchmarks: true runs every target, a list those, false or absent none; visibility: private")
    func decode() throws {
        let base = "repository: {url: /srv/git/app.git}\n"
        #expect(try BotFile.decode(base, file: "Bots/app.yml").performance.benchmarks == nil)
        #expect(try BotFile.decode(base + "performance: {benchmarks: true}\n", file: "Bots/app.yml").performance.benchmarks == [])
        #expect(try BotFile.decode(base + "performance: {benchmarks: false}\n", file: "Bots/app.yml").performance.benchmarks == nil)
        #expect(
            try BotFile.decode(base + "performance: {benchmarks: [Parse, Codec]}\n", file: "Bots/app.yml").performance.benchmarks == [
                "Parse", "Codec",
            ])
        #expect(try BotFile.decode(base, file: "Bots/app.yml").visibility == .public)
        #expect(try BotFile.decode(base + "visibility: private\n", file: "Bots/app.yml").visibility == .private)
    }
}
