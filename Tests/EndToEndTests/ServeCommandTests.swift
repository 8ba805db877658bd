import Foundation
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("kiln serve, run as a real process")
struct ServeCommandTests {
    @Test("Loads the bots, reports the broken ones, answers /health, and stops on SIGTERM")
    func serve() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: 'https://ci:s3cret@github.com/example/app.git'}\n")
        try home.write("Bots/broken.yml", "repository: {url: /srv/git/x.git}\nshedule: {}\n")
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        let port = try await server.waitForPort()

        let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/health")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")

        let output = try await server.terminate()
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("bot app: https://github.com/example/app.git main (Bots/app.yml)"))
        #expect(!output.standardOutput.contains("s3cret"))
        #expect(output.standardOutput.contains("bot broken: broken (Bots/broken.yml)"))
        #expect(output.standardOutput.contains("Bots/broken.yml:2:1: error: unknown key 'shedule' (did you mean 'schedule'?)"))
    }
}
