import Foundation
import KilnCore
import KilnTestSupport
import Testing

@testable import KilnStore

@Suite("Store: racing writers")
struct RacingWriterTests {
    @Test("On PostgreSQL a push racing the completion of its bot's running integration never deadlocks, round after round")
    func pushRacesCompletion() async throws {
        let test = try await TestStore(.postgres)
        let (store, other) = (test.store, try await test.another())
        for round in 0..<100 {
            let running = String(repeating: "a", count: 30) + String(format: "%010d", round)
            let pushed = String(repeating: "b", count: 30) + String(format: "%010d", round)
            _ = try await store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: running, branch: "main"), now: Date())
            let claim = try #require(try await store.claimNext(owner: "build-1 1 1", now: Date()))
            // The push supersedes the running integration as it completes: each waits on a row the other holds.
            let delivery = WebhookDelivery(forge: "generic", event: "push", commit: pushed, outcome: .queued, statusCode: 202, receivedAt: Date())
            async let push = other.receiveWebhook(
                delivery, queue: [QueueRequest(bot: "app", cause: .webhook, commit: pushed, branch: "main")], close: [], now: Date())
            async let completion = store.complete(claim, outcome: IntegrationOutcome(result: .triggerError), now: Date())
            let (receipt, ended) = try await (push, completion)
            #expect(ended.result == .triggerError && receipt.queued.first?.integration.commit == pushed)
            let next = try #require(try await store.claimNext(owner: "build-1 1 1", now: Date()))
            try await store.complete(next, outcome: IntegrationOutcome(result: .succeeded), now: Date())
        }
    }
}
