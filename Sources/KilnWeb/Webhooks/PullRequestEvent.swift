import Foundation
import KilnCore

/// A pull request event as a forge describes it: GitHub's and Gitea's (Forgejo's) `pull_request`,
/// GitLab's `Merge Request Hook`. Reduced to the repository, the pull request and what to do.
struct PullRequestEvent: Sendable, Equatable {
    /// Every URL the payload gives for the base repository.
    var repositoryURLs: [String]
    var pullRequest: PullRequest
    /// The head commit.
    var commit: String?
    /// Nil when the action asks nothing of Kiln (edited, labeled, approved…); `actionName` says which.
    var action: PullRequestChange.Action?
    var actionName: String

    /// Whether `event` (the forge's event header) is a pull request event.
    static func isPullRequest(_ event: String, forge: PushEvent.Forge) -> Bool {
        switch forge {
        case .github: event == "pull_request"
        case .gitea: event == "pull_request" || event == "pull_request_sync"
        case .gitlab: event == "Merge Request Hook"
        case .generic: false
        }
    }

    static func parse(_ body: [UInt8], forge: PushEvent.Forge) throws(PushEventError) -> PullRequestEvent {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let json = object as? [String: Any] else {
            throw .notJSON
        }
        switch forge {
        case .gitlab: return try gitlab(json)
        case .github, .gitea, .generic: return try githubOrGitea(json, kind: forge == .gitea ? .gitea : .github)
        }
    }

    /// GitHub and Gitea share the shape: `action`, `number`, `pull_request {title, user, html_url, head, base}`, `repository`.
    private static func githubOrGitea(_ json: [String: Any], kind: ForgeKind) throws(PushEventError) -> PullRequestEvent {
        guard let action = json["action"] as? String else { throw .missing("action") }
        guard let pull = json["pull_request"] as? [String: Any] else { throw .missing("pull_request") }
        guard let number = (json["number"] as? Int) ?? (pull["number"] as? Int) else { throw .missing("number") }
        guard let head = pull["head"] as? [String: Any] else { throw .missing("pull_request.head") }
        guard let base = pull["base"] as? [String: Any], let baseRef = base["ref"] as? String else { throw .missing("pull_request.base.ref") }
        let sha = head["sha"] as? String
        if let sha, !PushEvent.isCommit(sha) { throw .invalid("pull_request.head.sha", sha) }
        let user = pull["user"] as? [String: Any]
        let headRepository = head["repo"] as? [String: Any]
        let baseRepository = (base["repo"] as? [String: Any]) ?? (json["repository"] as? [String: Any])
        // A fork's head lives in another repository; a deleted fork's head repository is null.
        let fork = headRepository == nil || repositoryName(headRepository) != repositoryName(baseRepository)
        let urls = PushEvent.repositoryURLs(in: [json["repository"] as? [String: Any], base["repo"] as? [String: Any]])
        guard !urls.isEmpty else { throw .missing("repository") }
        let pullRequest = PullRequest(
            number: number, title: (pull["title"] as? String) ?? "", author: (user?["login"] as? String) ?? (user?["username"] as? String) ?? "",
            url: pull["html_url"] as? String,
            head: fork ? ((head["label"] as? String) ?? (head["ref"] as? String) ?? "") : ((head["ref"] as? String) ?? ""),
            base: baseRef, ref: kind.pullRef(number), fork: fork)
        let decided: PullRequestChange.Action? =
            switch action {
            case "opened", "reopened", "synchronize", "synchronized": .integrate
            case "closed": .close
            default: nil
            }
        return PullRequestEvent(repositoryURLs: urls, pullRequest: pullRequest, commit: sha, action: decided, actionName: action)
    }

    /// GitLab: `object_attributes {iid, title, url, source_branch, target_branch, action, oldrev, last_commit}`, `user`, `project`.
    private static func gitlab(_ json: [String: Any]) throws(PushEventError) -> PullRequestEvent {
        guard let attributes = json["object_attributes"] as? [String: Any] else { throw .missing("object_attributes") }
        guard let number = attributes["iid"] as? Int else { throw .missing("object_attributes.iid") }
        guard let target = attributes["target_branch"] as? String else { throw .missing("object_attributes.target_branch") }
        let sha = (attributes["last_commit"] as? [String: Any])?["id"] as? String
        if let sha, !PushEvent.isCommit(sha) { throw .invalid("object_attributes.last_commit.id", sha) }
        let action = (attributes["action"] as? String) ?? ""
        let user = json["user"] as? [String: Any]
        let source = attributes["source_branch"] as? String ?? ""
        let fork = (attributes["source_project_id"] as? Int) != (attributes["target_project_id"] as? Int)
        let urls = PushEvent.repositoryURLs(in: [
            json["project"] as? [String: Any], json["repository"] as? [String: Any], attributes["target"] as? [String: Any],
        ])
        guard !urls.isEmpty else { throw .missing("project") }
        let sourceNamespace = ((attributes["source"] as? [String: Any])?["path_with_namespace"] as? String)
        let pullRequest = PullRequest(
            number: number, title: (attributes["title"] as? String) ?? "",
            author: (user?["username"] as? String) ?? (user?["name"] as? String) ?? "", url: attributes["url"] as? String,
            head: fork ? "\(sourceNamespace ?? "fork"):\(source)" : source, base: target, ref: ForgeKind.gitlab.pullRef(number), fork: fork)
        let decided: PullRequestChange.Action? =
            switch action {
            case "open", "reopen": .integrate
            // An update without `oldrev` changed the description or labels, not the commits.
            case "update": attributes["oldrev"] is String ? .integrate : nil
            case "close", "merge": .close
            default: nil
            }
        return PullRequestEvent(repositoryURLs: urls, pullRequest: pullRequest, commit: sha, action: decided, actionName: action)
    }

    private static func repositoryName(_ repository: [String: Any]?) -> String? {
        guard let repository else { return nil }
        if let name = repository["full_name"] as? String { return name.lowercased() }
        if let id = repository["id"] as? Int { return String(id) }
        return nil
    }
}
