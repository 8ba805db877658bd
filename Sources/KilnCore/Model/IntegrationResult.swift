/// How a completed integration ended, in the order DESIGN.md ranks them.
///
/// The raw values are the public contract: they appear in bot files (`on:`), JSON and pages.
public enum IntegrationResult: String, CaseIterable, Codable, Sendable, Hashable {
    case succeeded
    case warnings
    case testFailures = "test-failures"
    case buildErrors = "build-errors"
    case checkoutError = "checkout-error"
    case triggerError = "trigger-error"
    case timeout
    case canceled
    case internalError = "internal-error"

    /// Succeeded and warnings count as passing (`kiln run` exits 0 for them).
    public var isPassing: Bool { self == .succeeded || self == .warnings }
}

/// Where an integration is in its life.
public enum IntegrationStep: String, CaseIterable, Codable, Sendable, Hashable {
    case pending
    case checkout
    case beforeTriggers = "before-triggers"
    case building
    case testing
    case processing
    case afterTriggers = "after-triggers"
    case completed
}

/// Why an integration was queued.
public enum IntegrationCause: String, CaseIterable, Codable, Sendable, Hashable {
    case webhook
    case poll
    case periodic
    case manual
}
