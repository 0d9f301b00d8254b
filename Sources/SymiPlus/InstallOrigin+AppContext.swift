import FlagClient

extension AppContext {
    /// This context with the install's origin as the flags' `firstInstallDate`: the verified first download date, and
    /// no date at all when the origin is unknown, unverified or not read yet (`nil`), so that a cohort on the date
    /// never matches and an early-user rule can neither keep open nor lock an install it cannot place.
    ///
    /// The app calls it whenever ``PurchaseState/installOrigin`` changes and hands the result to
    /// `FlagClient.updateApp(_:)`, which re-evaluates only when the context really changed.
    public func with(_ origin: InstallOrigin?) -> AppContext {
        var context = self
        context.firstInstallDate = origin?.firstInstallDate   // nil unless verified, by InstallOrigin's construction
        return context
    }
}
