import Testing
@testable import FlagKit

@Suite struct BuiltInAttributeTests {
    @Test func theTableIsTheContextsFields() {
        #expect(EvaluationContext.builtInAttributes
                == ["installId", "appVersion", "osVersion", "platform", "locale", "country", "channel", "firstInstallDate"])
        #expect(VersionAttributes.names == ["appVersion", "osVersion"])
        #expect(BuiltInAttribute.allCases.filter(\.isInstant) == [.firstInstallDate])
        func text(_ attribute: BuiltInAttribute) -> String { attribute.isInstant ? "2026-11-20T08:15:00+01:00" : "v-\(attribute.rawValue)" }
        var context = EvaluationContext()
        for attribute in BuiltInAttribute.allCases { context[keyPath: attribute.keyPath] = text(attribute) }
        for attribute in BuiltInAttribute.allCases {
            #expect(context.attribute(attribute.rawValue) == .string(text(attribute)))
            #expect(context[builtIn: attribute] == text(attribute))
        }
        #expect(context.firstInstallMilliseconds == 1_795_158_900_000, "set through the key path, the date is parsed too")
        #expect(context.parsedAppVersion == nil, "set through the key path, the version is parsed as by the initializer")
        context[keyPath: BuiltInAttribute.appVersion.keyPath] = "2.4.0"
        #expect(context.parsedAppVersion == SemanticVersion("2.4.0"))
    }

    @Test func namesAreFoundInPlaceAndTargetingKeyIsTheInstallId() {
        for attribute in BuiltInAttribute.allCases {
            let bytes = Array(attribute.rawValue.utf8)
            #expect(bytes.withUnsafeBufferPointer { BuiltInAttribute.named(utf8: $0) } == attribute)
            #expect(BuiltInAttribute(named: attribute.rawValue) == attribute)
        }
        for other in ["", "locales", "Locale", "installid", "targetingKey", "appVersio", String(repeating: "x", count: 40)] {
            #expect(Array(other.utf8).withUnsafeBufferPointer { BuiltInAttribute.named(utf8: $0) } == nil, "\(other)")
        }
        #expect(BuiltInAttribute(named: "targetingKey") == .installId)
        #expect(EvaluationContext(attributes: ["targetingKey": "a", "locale": "de-DE", "plan": "x"])
                == EvaluationContext(installId: "a", locale: "de-DE", custom: ["plan": "x"]))
    }

    @Test func anInstallDateThatIsNotOneIsUnknownForEveryOperator() {
        for text in ["2026-11-20", "2026-11-20T08:15:00", "2027-02-29T00:00:00Z", "2027-03-01T00:00:60Z", "", "garbage"] {
            let context = EvaluationContext(firstInstallDate: text)
            #expect(context.firstInstallDate == text, "the text is kept as sent")
            #expect(context.firstInstallMilliseconds == nil, "\(text)")
            #expect(context.attribute("firstInstallDate") == nil, "absent to conditions, exists included: \(text)")
        }
        let number = EvaluationContext(attributes: ["firstInstallDate": 1_803_859_200_000])
        #expect(number.custom["firstInstallDate"] == 1_803_859_200_000)
        #expect(number.attribute("firstInstallDate") == nil, "not a string: unknown, unlike other built-ins")
        var context = EvaluationContext(firstInstallDate: "2027-03-01T00:00:00.0009Z")
        #expect(context.firstInstallMilliseconds == 1_803_859_200_000, "truncated to the millisecond")
        context.firstInstallDate = nil
        #expect(context.firstInstallMilliseconds == nil)
    }

    @Test func problemsAreSaidWhereAContextComesIn() {
        #expect(BuiltInAttribute.locale.problem(with: "de-DE") == nil)
        #expect(BuiltInAttribute.locale.problem(with: 5) == "must be a string, not integer")
        #expect(BuiltInAttribute.firstInstallDate.problem(with: "2027-03-01T00:00:00-05:00") == nil)
        #expect(BuiltInAttribute.firstInstallDate.problem(with: .null) == "must be a string, not null")
        #expect(BuiltInAttribute.firstInstallDate.problem(with: "2027-03-01") == "must be an RFC 3339 date-time with an offset, "
                + "such as 2027-03-01T00:00:00+01:00 or 2027-02-28T23:00:00Z: the time is missing (got \"2027-03-01\")")
    }
}
