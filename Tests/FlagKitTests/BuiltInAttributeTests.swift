import Testing
@testable import FlagKit

@Suite struct BuiltInAttributeTests {
    @Test func theTableIsTheContextsFields() {
        #expect(EvaluationContext.builtInAttributes == ["installId", "appVersion", "osVersion", "platform", "locale", "country", "channel"])
        #expect(VersionAttributes.names == ["appVersion", "osVersion"])
        var context = EvaluationContext()
        for attribute in BuiltInAttribute.allCases { context[keyPath: attribute.keyPath] = "v-\(attribute.rawValue)" }
        for attribute in BuiltInAttribute.allCases {
            #expect(context.attribute(attribute.rawValue) == .string("v-\(attribute.rawValue)"))
        }
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
}
