import ArgumentParser
import Foundation
import KilnCore
import KilnStore
import KilnWeb

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the bots, their last results, and running and queued integrations.",
        discussion: """
            Reads the data directory's store, so it works while the server runs. With --json, prints \
            exactly what GET /api/bots returns. Without, also the mail outbox: mails queued (with \
            their attempts and last error) and failed.

            Examples:
              kiln status
              kiln status --json | jq '.[] | select(.status == "broken") | .problems'
            """
    )

    @OptionGroup var location: LocationOptions

    @Flag(help: "Print the JSON of GET /api/bots.")
    var json = false

    func run() async throws {
        let config: ServerConfig
        do {
            config = try location.serverConfig()
        } catch {
            throw fail(with: error)
        }
        let bots: [API.Bot]
        let outbox: Outbox
        do {
            let store = try await StoreLocation.open(config)
            bots = try await API.bots(from: store)
            outbox = try await store.outbox(limit: 10)
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        if json {
            do {
                Console.out(String(decoding: try API.encode(bots), as: UTF8.self))
            } catch {
                Console.error("error: \(error)")
                throw ExitCode.failure
            }
            return
        }
        let now = Date()
        if bots.isEmpty {
            Console.out("no bots yet in \(config.data) (kiln serve records them when it loads \(config.bots))")
        }
        let width = bots.map(\.name.count).max() ?? 3
        for bot in bots {
            var line =
                bot.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + bot.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            if let last = bot.last {
                line += "  last #\(last.number) \(last.result?.rawValue ?? "?")"
                if let ended = last.endedAt { line += " \(Self.ago(now.timeIntervalSince(ended))) ago" }
                if let duration = last.duration { line += " in \(DurationText.compact(duration))" }
            } else {
                line += "  never integrated"
            }
            if let running = bot.running { line += "; running #\(running.number) (\(running.step.rawValue))" }
            if !bot.queued.isEmpty { line += "; queued " + bot.queued.map { "#\($0.number)" }.joined(separator: ", ") }
            Console.out(line)
            for problem in bot.problems { Console.out("  \(problem)") }
        }
        Self.printOutbox(outbox, now: now)
    }

    /// `mail: 2 queued, 1 failed, 140 sent`, then each undelivered mail with its last error.
    static func printOutbox(_ outbox: Outbox, now: Date) {
        guard outbox.queued + outbox.failed + outbox.sent > 0 else { return }
        Console.out("mail: \(outbox.queued) queued, \(outbox.failed) failed, \(outbox.sent) sent")
        for mail in outbox.undelivered {
            var line = "  \(mail.state) \"\(mail.subject)\" to \(mail.recipients.joined(separator: ", "))"
            if mail.state == .queued, mail.attempts > 0 {
                line +=
                    ", \(mail.attempts) attempt\(mail.attempts == 1 ? "" : "s"), next in \(DurationText.compact(mail.nextAttemptAt.timeIntervalSince(now)))"
            }
            if let error = mail.lastError { line += ": \(error)" }
            Console.out(line)
        }
    }

    static func ago(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m" }
        if whole < 86_400 { return "\(whole / 3600)h" }
        return "\(whole / 86_400)d"
    }
}
