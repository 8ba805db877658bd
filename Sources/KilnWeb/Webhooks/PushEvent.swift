import Foundation

/// A push as a forge describes it: which repository (by every URL the forge gives for it), which
/// branch, and which commit the branch now points at.
struct PushEvent: Sendable, Equatable {
    var repositoryURLs: [String]
    var branch: String
    /// Nil when the forge did not say (the bot then integrates the branch's head).
    var commit: String?
    /// A push that deleted the branch: nothing to integrate.
    var deleted: Bool
    /// False for tags and other refs, which bots do not follow.
    var isBranch = true

    /// The forges Kiln understands, by the last path component of `/hooks/{forge}`.
    enum Forge: String, CaseIterable, Sendable {
        case github, gitlab, gitea, generic
    }

    static let zeroCommit = String(repeating: "0", count: 40)

    /// Reads a push payload; throws `PushEventError` naming what is missing.
    static func parse(_ body: [UInt8], forge: Forge) throws(PushEventError) -> PushEvent {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let json = object as? [String: Any] else {
            throw .notJSON
        }
        switch forge {
        case .generic:
            guard let repository = json["repository"] as? String, !repository.isEmpty else { throw .missing("repository") }
            guard let branch = json["branch"] as? String, !branch.isEmpty else { throw .missing("branch") }
            let commit = json["commit"] as? String
            if let commit, !isCommit(commit) { throw .invalid("commit", commit) }
            return PushEvent(repositoryURLs: [repository], branch: Self.branch(fromRef: branch), commit: commit, deleted: false)
        case .github, .gitea, .gitlab:
            guard let ref = json["ref"] as? String, !ref.isEmpty else { throw .missing("ref") }
            let after = (json["after"] as? String) ?? (json["checkout_sha"] as? String)
            if let after, !isCommit(after) { throw .invalid("after", after) }
            let urls = repositoryURLs(in: [json["repository"] as? [String: Any], json["project"] as? [String: Any]])
            guard !urls.isEmpty else { throw .missing("repository") }
            let deleted = (json["deleted"] as? Bool) == true || after == zeroCommit
            return PushEvent(
                repositoryURLs: urls, branch: branch(fromRef: ref), commit: deleted ? nil : after, deleted: deleted,
                isBranch: ref.hasPrefix("refs/heads/"))
        }
    }

    /// Every URL the forges give for a repository in these objects (`repository`, GitLab's
    /// `project`…), each once, in order.
    static func repositoryURLs(in containers: [[String: Any]?]) -> [String] {
        let keys = ["clone_url", "ssh_url", "git_url", "html_url", "git_http_url", "git_ssh_url", "http_url", "url", "web_url", "homepage"]
        var urls: [String] = []
        for container in containers.compactMap({ $0 }) {
            for url in keys.compactMap({ container[$0] as? String }) where !url.isEmpty && !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    static func branch(fromRef ref: String) -> String {
        ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : ref
    }

    static func isCommit(_ text: String) -> Bool {
        (7...64).contains(text.utf8.count) && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

enum PushEventError: Error, Equatable, CustomStringConvertible {
    case notJSON
    case missing(String)
    case invalid(String, String)
    case badFormEncoding

    var description: String {
        switch self {
        case .notJSON: "the body is not a JSON object"
        case .missing(let field): "the payload has no '\(field)'"
        case .invalid(let field, let value): "'\(field)' is not a commit id: \(value.prefix(80))"
        case .badFormEncoding: "the form field 'payload' holds a malformed %-escape"
        }
    }
}
