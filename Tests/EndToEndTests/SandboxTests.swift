import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

@Suite("Sandbox: a bot's secrets reach only its own builds")
struct SandboxTests {
    /// Bot A has a secret (in Kiln's environment, as every bot's secrets are) and leaves it in
    /// its workspace; its bot file mentions it too, as a credential in a URL would. Bot B looks
    /// for it where a build could: other processes' environments, the data directory, A's
    /// workspace, the bot files. Under the sandbox B finds nothing; with `sandbox: none` it finds
    /// it everywhere, which shows the probe would catch a leak.
    @Test("Under the sandbox another bot's build finds the secret nowhere; with sandbox: none it finds it everywhere")
    func secretsStayWithTheirBot() async throws {
        let home = try TemporaryDirectory()
        let repo = try ServerTests.quickRepository()
        let secret = "tok-\(UUID().uuidString.prefix(12))"
        try home.write(
            "Bots/a.yml",
            """
            # deploys with \(secret)
            repository: {url: '\(repo.url)'}
            test: {enabled: false}
            sandbox: bubblewrap
            secrets: [DEPLOY_TOKEN]
            triggers: [{name: keep, phase: before, run: 'echo "$DEPLOY_TOKEN" > "$KILN_WORKSPACE/token.txt"'}]

            """)
        let probe = """
            n=0; for f in /proc/[0-9]*/environ; do grep -qs \(secret) "$f" && n=$((n+1)); done; echo "probe proc $n"; \
            grep -rqs \(secret) \(home.url(".kiln")) && echo "probe data yes" || echo "probe data no"; \
            grep -qs \(secret) \(home.url(".kiln/workspaces/a/token.txt")) && echo "probe workspace yes" || echo "probe workspace no"; \
            grep -rqs \(secret) \(home.url("Bots")) && echo "probe bots yes" || echo "probe bots no"
            """
        let bot = { (sandbox: String) in
            "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nsandbox: \(sandbox)\ntriggers: [{name: probe, phase: before, run: '\(probe)'}]\n"
        }
        let environment = ProcessInfo.processInfo.environment.merging(["DEPLOY_TOKEN": secret]) { _, new in new }
        let kept = try await runProcess(Executables.kiln, ["run", "a"], in: home.path, environment: environment)
        #expect(try String(contentsOfFile: home.url(".kiln/workspaces/a/token.txt"), encoding: .utf8) == secret + "\n", "\(kept.standardOutput)")

        try home.write("Bots/b.yml", bot("bubblewrap"))
        _ = try await runProcess(Executables.kiln, ["run", "b"], in: home.path, environment: environment)
        let boxed = try String(contentsOfFile: home.url(".kiln/logs/b/1.log"), encoding: .utf8)
        for line in ["probe proc 0", "probe data no", "probe workspace no", "probe bots no"] {
            #expect(boxed.contains(line), "\(line): \(boxed)")
        }

        try home.write("Bots/b.yml", bot("none"))
        _ = try await runProcess(Executables.kiln, ["run", "b"], in: home.path, environment: environment)
        let open = try String(contentsOfFile: home.url(".kiln/logs/b/2.log"), encoding: .utf8)
        #expect(!open.contains("probe proc 0"), "kiln's own environment holds every bot's secrets: \(open)")
        for line in ["probe data yes", "probe workspace yes", "probe bots yes"] {
            #expect(open.contains(line), "\(line): \(open)")
        }
    }
}
