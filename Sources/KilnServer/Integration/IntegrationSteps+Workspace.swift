import KilnBuild
import KilnCore
import KilnPresentation
import KilnStore

extension IntegrationSteps {
    /// After the checkout: a workspace without a `.build` starts from a snapshot of the same bot
    /// and cell when there is one (`WarmWorkspaces`); the log and the store say where it came
    /// from. Then `.build` is made to hold where the build sees it (`Workspace.settleSeenPath`).
    mutating func startWorkspace() async throws(Stop) {
        guard let warm else {
            await settleSeenPath()
            return
        }
        let origin = await warm.workspaces.start(workspace, cell: warm.cell, swiftVersion: warm.swiftVersion, wiped: wiped)
        await log.note("workspace: \(origin.sentence)")
        await settleSeenPath()
        do {
            try await warm.workspaces.catalog.setWorkspace(claim, origin: origin)
        } catch .claimLost(_, let reason) {
            throw .lost("this host no longer holds the integration (\(reason))")
        } catch {
            context.logger.warning(
                "recording where a workspace came from failed: its page does not say", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
        }
    }

    private func settleSeenPath() async {
        if let last = await workspace.settleSeenPath() {
            await log.note(
                "clang's module caches were made where the build saw the workspace at \(last): they are built again at \(workspace.seenAs)")
        }
    }
}
