/// The two languages of Symi Plus' texts: the German default and English for `en*` locales, exactly as the copy
/// flags choose theirs (the documents' `english` cohort is `locale startsWith "en"`).
public enum SymiPlusLanguage: String, Sendable, Hashable, CaseIterable {
    /// German, for every locale that is not English.
    case german = "de"
    /// English, for `en`, `en_US`, `en-GB`, ...
    case english = "en"

    /// The language for a locale identifier (`Locale.current.identifier`); German when there is none.
    public init(localeIdentifier: String?) {
        self = (localeIdentifier?.hasPrefix("en") ?? false) ? .english : .german
    }
}
