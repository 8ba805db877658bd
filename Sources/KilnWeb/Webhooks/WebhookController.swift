import Foundation
import HTTPTypes
import Hummingbird
import KilnCore
import KilnStore
import Logging

/// `POST /hooks/{github,gitlab,gitea,generic}`: push events that queue integrations.
///
/// Every delivery is recorded with its outcome before it is answered, and a push's integrations
/// are queued in the same transaction: 202 with the integrations it reached (new or coalesced),
/// 200 when no bot follows the branch (or the event is not a push), 400 when the payload cannot be
/// read, 401 when the signature is missing or wrong, 413 over 1 MiB.
struct WebhookController {
    let store: any Store
    /// The bots as last loaded.
    let bots: @Sendable () async -> [Bot]
    /// The server-wide secret (`webhooks.secret-file`), if any.
    let secret: [UInt8]?
    let logger: Logger

    static let maximumBody = 1 << 20

    struct Answer: Encodable {
        var outcome: WebhookDelivery.Outcome
        @Nullable var detail: String?
        var integrations: [Reached]

        struct Reached: Encodable {
            var bot: String
            var number: Int
            var coalesced: Bool
        }
    }

    func addRoutes(to router: Router<some RequestContext>) {
        for forge in PushEvent.Forge.allCases {
            router.post("hooks/\(forge.rawValue)") { request, context in
                try await receive(request, forge: forge)
            }
        }
    }

    func receive(_ request: Request, forge: PushEvent.Forge) async throws -> Response {
        let event = Self.eventName(request.headers, forge: forge)
        var delivery = WebhookDelivery(forge: forge.rawValue, event: event, outcome: .ignored, statusCode: 0)

        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maximumBody {
            return try await answer(&delivery, .contentTooLarge, .tooLarge, "the body is larger than 1 MiB")
        }
        let body: [UInt8]
        do {
            var buffer = try await request.body.collect(upTo: Self.maximumBody)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return try await answer(&delivery, .contentTooLarge, .tooLarge, "the body is larger than 1 MiB")
        }

        // Signature first, so that nothing about an unsigned request's payload is revealed.
        let bots = await self.bots().filter { $0.schedule.onCommit }
        // Bot secrets are read at each delivery, so a rotated file takes effect at once. A file
        // that cannot be read stands for a secret nothing matches: its bot takes no delivery.
        var botSecrets: [String: [UInt8]?] = [:]
        for bot in bots {
            guard let path = bot.webhookSecretFile else { continue }
            let read = SecretFile.read(path)
            if read == nil {
                logger.warning(
                    "cannot read the bot's webhook-secret-file; it takes no webhook until the file holds a secret",
                    metadata: ["bot": "\(bot.name)", "file": "\(path)"])
            }
            botSecrets[bot.name] = read
        }
        let candidates = [secret].compactMap { $0 } + botSecrets.values.compactMap { $0 }
        var verified: [[UInt8]] = []
        if secret != nil || !botSecrets.isEmpty {
            let header = Signature.headerNames(for: forge).lazy.compactMap { request.headers[$0] }.first
            guard let header else {
                return try await answer(
                    &delivery, .unauthorized, .unauthorized,
                    "missing \(Signature.headerNames(for: forge).map(\.rawName).joined(separator: " or ")) header")
            }
            verified = candidates.filter { Signature.isValid(header, body: body, secret: $0, forge: forge) }
            guard !verified.isEmpty else {
                return try await answer(&delivery, .unauthorized, .unauthorized, "the signature does not match the configured secret")
            }
        }

        guard Self.isPush(event, forge: forge) else {
            return try await answer(&delivery, .ok, .ignored, event == "ping" ? "ping" : "not a push event: \(event)")
        }
        let push: PushEvent
        do {
            push = try PushEvent.parse(body, forge: forge)
        } catch {
            return try await answer(&delivery, .badRequest, .malformed, error.description)
        }
        let urls = push.repositoryURLs.compactMap { try? RepositoryURL(parsing: $0, relativeTo: "/") }
        delivery.repository = urls.first?.redacted
        delivery.branch = push.branch
        delivery.commit = push.commit
        guard push.isBranch, !push.deleted else {
            return try await answer(&delivery, .ok, .ignored, push.deleted ? "the branch was deleted" : "not a branch: \(push.branch)")
        }
        let requests = Push(repositories: Set(urls.map(\.identity)), branch: push.branch, commit: push.commit).requests(for: bots) { bot in
            // A bot with its own secret takes only deliveries signed with it; others take the server's.
            if let own = botSecrets[bot.name] { return own.map { verified.contains($0) } ?? false }
            return secret.map { verified.contains($0) } ?? true
        }
        guard !requests.isEmpty else {
            let repository = delivery.repository ?? "the repository"
            return try await answer(&delivery, .ok, .ignored, "no bot follows \(repository) branch \(push.branch)")
        }
        delivery.outcome = .queued
        delivery.statusCode = 202
        let outcomes = try await store.receiveWebhook(delivery, queue: requests, now: Date())
        for outcome in outcomes {
            logger.info(
                outcome.coalesced ? "coalesced" : "queued",
                metadata: [
                    "bot": "\(outcome.integration.bot)", "number": "\(outcome.integration.number)", "cause": "webhook",
                    "why": "\(forge.rawValue) push to \(push.branch)",
                ])
        }
        let reached = outcomes.map { Answer.Reached(bot: $0.integration.bot, number: $0.integration.number, coalesced: $0.coalesced) }
        return try Self.json(.accepted, Answer(outcome: .queued, detail: nil, integrations: reached))
    }

    /// Records a delivery that queues nothing, and answers it.
    private func answer(
        _ delivery: inout WebhookDelivery, _ status: HTTPResponse.Status, _ outcome: WebhookDelivery.Outcome, _ detail: String
    ) async throws -> Response {
        delivery.outcome = outcome
        delivery.statusCode = status.code
        delivery.detail = detail
        _ = try await store.receiveWebhook(delivery, queue: [], now: Date())
        if status.code >= 400 {
            logger.warning("webhook refused", metadata: ["forge": "\(delivery.forge)", "status": "\(status.code)", "why": "\(detail)"])
        }
        return try Self.json(status, Answer(outcome: outcome, detail: detail, integrations: []))
    }

    static func json(_ status: HTTPResponse.Status, _ answer: Answer) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: try API.encode(answer))))
    }

    static func eventName(_ headers: HTTPFields, forge: PushEvent.Forge) -> String {
        let names: [HTTPField.Name] =
            switch forge {
            case .github: [.githubEvent]
            case .gitlab: [.gitlabEvent]
            case .gitea: [.giteaEvent, .forgejoEvent]
            case .generic: []
            }
        return names.lazy.compactMap { headers[$0] }.first ?? (forge == .generic ? "push" : "")
    }

    static func isPush(_ event: String, forge: PushEvent.Forge) -> Bool {
        // A delivery without an event header is taken for a push; its payload decides.
        switch forge {
        case .github, .gitea: event == "push" || event.isEmpty
        case .gitlab: event == "Push Hook" || event.isEmpty
        case .generic: true
        }
    }
}
