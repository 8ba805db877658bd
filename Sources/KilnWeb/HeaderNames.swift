import HTTPTypes
import KilnCore

/// Header names HTTPTypes does not predefine (forges name their own: `Forge.eventHeaders`).
extension HTTPField.Name {
    static let contentTypeOptions = named("X-Content-Type-Options")
    /// The secret hosts show each other to fetch a workspace snapshot (`SnapshotController`).
    static let hostSecret = named(WorkspaceSnapshot.secretHeader)

    /// A name written here, which is a valid token by construction.
    private static func named(_ name: String) -> Self {
        guard let field = Self(name) else { preconditionFailure("'\(name)' is not a valid header name") }
        return field
    }
}
