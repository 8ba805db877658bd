import Foundation
import KilnCore

extension Summary {
    /// Coverage as pages, mails and the terminal write it: `87.5 %`; nil when it was not measured.
    public var coverageText: String? {
        coverage.map { String(format: "%.1f %%", $0) }
    }
}
