import HTTPTypes

/// Header names HTTPTypes does not predefine.
extension HTTPField.Name {
    static let contentTypeOptions = named("X-Content-Type-Options")
    static let githubEvent = named("X-GitHub-Event")
    static let gitlabEvent = named("X-Gitlab-Event")
    static let giteaEvent = named("X-Gitea-Event")
    static let forgejoEvent = named("X-Forgejo-Event")
    static let githubSignature = named("X-Hub-Signature-256")
    static let gitlabToken = named("X-Gitlab-Token")
    static let giteaSignature = named("X-Gitea-Signature")
    static let forgejoSignature = named("X-Forgejo-Signature")
    static let kilnSignature = named("X-Kiln-Signature")

    /// A name written here, which is a valid token by construction.
    private static func named(_ name: String) -> Self {
        guard let field = Self(name) else { preconditionFailure("'\(name)' is not a valid header name") }
        return field
    }
}
