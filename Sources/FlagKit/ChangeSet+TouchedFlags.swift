/// Which flags a change touches: what the protection check of `docs/governance.md` looks at.
extension ChangeSet {
    /// The flags this change set touches, in UTF-8 order:
    ///
    /// - the flags it adds, changes or removes;
    /// - the flags whose rules use a cohort it adds, changes or removes, also through cohort references
    ///   (a cohort whose condition names a changed cohort is changed in effect, and so on transitively);
    /// - the flags that require a touched flag, transitively (their value depends on it).
    ///
    /// Cohort references, rules and prerequisites are read in BOTH documents at once, so a reference only
    /// the base has (about to be removed) or only the proposal has (about to be added) counts too: changing
    /// the `internal` cohort touches `checkoutEnabled` when its rules use `internal` in either.
    public func touchedFlags(base: FlagDocument, proposed: FlagDocument) -> [String] {
        let documents = [base, proposed]
        // Cohorts changed in effect: the changed ones, then every cohort that refers to one, to a fixpoint.
        var cohortsInEffect = Set(cohorts.keys)
        var grew = true
        while grew {
            grew = false
            for document in documents {
                for (name, condition) in document.cohorts where !cohortsInEffect.contains(name)
                    && condition.referencedCohorts.contains(where: cohortsInEffect.contains) {
                    cohortsInEffect.insert(name)
                    grew = true
                }
            }
        }
        var touched = Set(flags.keys)
        for document in documents {
            for (key, flag) in document.flags where flag.rules.contains(where: { rule in
                rule.cohort.map(cohortsInEffect.contains) ?? false
            }) {
                touched.insert(key)
            }
        }
        // Dependants: a flag that requires a touched flag yields its default or not depending on it.
        grew = true
        while grew {
            grew = false
            for document in documents {
                for (key, flag) in document.flags where !touched.contains(key)
                    && flag.requires.keys.contains(where: touched.contains) {
                    touched.insert(key)
                    grew = true
                }
            }
        }
        return touched.sorted(by: JSONValue.utf8Order)
    }
}
