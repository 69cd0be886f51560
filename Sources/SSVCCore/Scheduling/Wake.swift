import FoundationEssentials

/// When an app's timer fires next, and for what: the daemon wakes for
/// checks and for phased offers, and for nothing else.
package struct Wake: Sendable, Equatable {
    package enum Reason: Sendable, Equatable {
        case check
        /// A pending offer's time: the status flips without a fetch.
        case offer
    }

    package var at: Date
    package var reason: Reason

    package init(at: Date, reason: Reason) {
        self.at = at
        self.reason = reason
    }

    /// The earlier of the planned check and the pending offer (the offer
    /// on a tie, so that a check at the same instant sees it made); nil
    /// when there is neither (manual checks only, nothing pending). An
    /// offer the server's cap holds has no time: only a check can make it.
    package static func next(check: NextCheck, offer: PhasedOffer?) -> Wake? {
        switch (check.at, offer?.dueAt) {
        case (nil, nil): nil
        case let (at?, nil): Wake(at: at, reason: .check)
        case let (nil, offerAt?): Wake(at: offerAt, reason: .offer)
        case let (at?, offerAt?): offerAt <= at ? Wake(at: offerAt, reason: .offer) : Wake(at: at, reason: .check)
        }
    }
}
