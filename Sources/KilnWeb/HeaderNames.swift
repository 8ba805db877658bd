import HTTPTypes

/// Header names HTTPTypes does not predefine.
extension HTTPField.Name {
    static let contentTypeOptions = Self("X-Content-Type-Options")!
    static let githubEvent = Self("X-GitHub-Event")!
    static let gitlabEvent = Self("X-Gitlab-Event")!
    static let giteaEvent = Self("X-Gitea-Event")!
    static let forgejoEvent = Self("X-Forgejo-Event")!
    static let githubSignature = Self("X-Hub-Signature-256")!
    static let gitlabToken = Self("X-Gitlab-Token")!
    static let giteaSignature = Self("X-Gitea-Signature")!
    static let forgejoSignature = Self("X-Forgejo-Signature")!
    static let kilnSignature = Self("X-Kiln-Signature")!
}
