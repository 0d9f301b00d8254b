import Testing
@testable import FlagKit

/// The JSONTestSuite corpus's kinds of case (Seriot's "Parsing JSON is a Minefield"), named as there: `y_` must be
/// accepted, `n_` refused, and the `i_` ones (implementation-defined) decided as docs/architecture.md says. The
/// differential test against Python's json (Tests/json) covers the generated rest.
@Suite struct JSONParserCorpusTests {
    static let accepted: [(String, [UInt8])] = [
        ("y_array_arraysWithSpaces", Array("[[]   ]".utf8)),
        ("y_array_empty", Array("[]".utf8)),
        ("y_array_empty-string", Array("[\"\"]".utf8)),
        ("y_array_false", Array("[false]".utf8)),
        ("y_array_heterogeneous", Array("[null, 1, \"1\", {}]".utf8)),
        ("y_array_with_leading_space", Array(" [1]".utf8)),
        ("y_array_with_trailing_space", Array("[2] ".utf8)),
        ("y_number_0e+1", Array("[0e+1]".utf8)),
        ("y_number_0e1", Array("[0e1]".utf8)),
        ("y_number_after_space", Array("[ 4]".utf8)),
        ("y_number_double_close_to_zero", Array("[-0.000000000000000000000000000000000000000000000000000000000000000000000000000001]".utf8)),
        ("y_number_int_with_exp", Array("[20e1]".utf8)),
        ("y_number_minus_zero", Array("[-0]".utf8)),
        ("y_number_negative_int", Array("[-123]".utf8)),
        ("y_number_real_capital_e_neg_exp", Array("[1E-2]".utf8)),
        ("y_number_real_fraction_exponent", Array("[123.456e78]".utf8)),
        ("y_number_simple_real", Array("[123.456789]".utf8)),
        ("y_object_basic", Array("{\"asd\":\"sdf\"}".utf8)),
        ("y_object_duplicated_key", Array("{\"a\":\"b\",\"a\":\"c\"}".utf8)),
        ("y_object_empty_key", Array("{\"\":0}".utf8)),
        ("y_object_escaped_null_in_key", Array("{\"foo\\u0000bar\": 42}".utf8)),
        ("y_object_long_strings", Array("{\"x\":[{\"id\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}], \"id\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}".utf8)),
        ("y_string_1_2_3_bytes_UTF-8_sequences", Array("[\"\\u0060\\u012a\\u12AB\"]".utf8)),
        ("y_string_accepted_surrogate_pair", Array("[\"\\uD801\\udc37\"]".utf8)),
        ("y_string_allowed_escapes", Array("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]".utf8)),
        ("y_string_in_array_with_leading_space", Array("[ \"asd\"]".utf8)),
        ("y_string_nonCharacterInUTF-8_U+FFFF", [0x5B, 0x22, 0xEF, 0xBF, 0xBF, 0x22, 0x5D]),
        ("y_string_unicode_U+10FFFE_nonchar", Array("[\"\\uDBFF\\uDFFE\"]".utf8)),
        ("y_string_utf8", Array("[\"€𝄞\"]".utf8)),
        ("y_string_with_del_character", Array("[\"a\u{7f}a\"]".utf8)),
        ("y_structure_lonely_false", Array("false".utf8)),
        ("y_structure_lonely_int", Array("42".utf8)),
        ("y_structure_lonely_null", Array("null".utf8)),
        ("y_structure_lonely_string", Array("\"asd\"".utf8)),
        ("y_structure_whitespace_array", Array(" [] ".utf8)),
        ("y_structure_trailing_newline", Array("[\"a\"]\n".utf8)),
    ]

    static let refused: [(String, [UInt8])] = [
        ("n_array_1_true_without_comma", Array("[1 true]".utf8)),
        ("n_array_comma_after_close", Array("[\"\"],".utf8)),
        ("n_array_extra_comma", Array("[\"\",]".utf8)),
        ("n_array_incomplete", Array("[\"x\"".utf8)),
        ("n_array_just_minus", Array("[-]".utf8)),
        ("n_array_missing_value", Array("[   , \"\"]".utf8)),
        ("n_array_number_and_comma", Array("[1,]".utf8)),
        ("n_array_unclosed", Array("[\"\"".utf8)),
        ("n_incomplete_false", Array("[fals]".utf8)),
        ("n_incomplete_null", Array("[nul]".utf8)),
        ("n_number_++", Array("[++1234]".utf8)),
        ("n_number_-01", Array("[-01]".utf8)),
        ("n_number_.2e-3", Array("[.2e-3]".utf8)),
        ("n_number_0.e1", Array("[0.e1]".utf8)),
        ("n_number_1.0e+", Array("[1.0e+]".utf8)),
        ("n_number_2.e3", Array("[2.e3]".utf8)),
        ("n_number_Inf", Array("[Inf]".utf8)),
        ("n_number_NaN", Array("[NaN]".utf8)),
        ("n_number_hex_1_digit", Array("[0x1]".utf8)),
        ("n_number_leading_zero", Array("[012]".utf8)),
        ("n_number_minus_infinity", Array("[-Infinity]".utf8)),
        ("n_number_plus_one", Array("[+1]".utf8)),
        ("n_number_with_leading_zero", Array("[01]".utf8)),
        ("n_object_bad_value", Array("[\"x\", truth]".utf8)),
        ("n_object_comma_instead_of_colon", Array("{\"x\", null}".utf8)),
        ("n_object_missing_colon", Array("{\"a\" b}".utf8)),
        ("n_object_missing_value", Array("{\"a\":".utf8)),
        ("n_object_non_string_key", Array("{1:1}".utf8)),
        ("n_object_single_quote", Array("{'a':0}".utf8)),
        ("n_object_trailing_comma", Array("{\"id\":0,}".utf8)),
        ("n_object_unquoted_key", Array("{a: \"b\"}".utf8)),
        ("n_string_1_surrogate_then_escape", Array("[\"\\uD800\\\"]".utf8)),
        ("n_string_escape_x", Array("[\"\\x00\"]".utf8)),
        ("n_string_escaped_emoji", Array("[\"\\🌀\"]".utf8)),
        ("n_string_invalid_utf8_after_escape", [0x5B, 0x22, 0x5C, 0xE5, 0x22, 0x5D]),
        ("n_string_single_quote", Array("['single quote']".utf8)),
        ("n_string_unescaped_newline", Array("[\"new\nline\"]".utf8)),
        ("n_string_unescaped_tab", Array("[\"\t\"]".utf8)),
        ("n_string_unicode_CapitalU", Array("\"\\UA66D\"".utf8)),
        ("n_structure_100000_opening_arrays", Array(repeating: UInt8(ascii: "["), count: 100_000)),
        ("n_structure_UTF8_BOM_no_data", [0xEF, 0xBB, 0xBF]),
        ("n_structure_double_array", Array("[][]".utf8)),
        ("n_structure_no_data", []),
        ("n_structure_null-byte-outside-string", [0x5B, 0x00, 0x5D]),
        ("n_structure_object_with_trailing_garbage", Array("{\"a\": true} \"x\"".utf8)),
        ("n_structure_open_array_object", Array(String(repeating: "[{\"\":", count: 5000).utf8)),
        ("n_structure_trailing_#", Array("{\"a\":\"b\"}#{}".utf8)),
        ("n_structure_unclosed_object", Array("{\"asd\":\"asd\"".utf8)),
        ("n_structure_whitespace_formfeed", Array("[\u{0C}]".utf8)),
    ]

    /// Implementation-defined cases, as FlagKit decides them (docs/architecture.md, "Own JSON parser").
    static let decided: [(String, [UInt8], accepted: Bool)] = [
        ("i_string_1st_surrogate_but_2nd_missing", Array("[\"\\uDADA\"]".utf8), false),  // not text (RFC 8259 §8.2)
        ("i_string_lone_second_surrogate", Array("[\"\\uDFAA\"]".utf8), false),
        ("i_string_invalid_utf-8", [0x5B, 0x22, 0xFF, 0x22, 0x5D], false),  // RFC 8259 §8.1: UTF-8 only
        ("i_string_overlong_sequence_2_bytes", [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], false),
        ("i_string_UTF-16LE_with_BOM", [0xFF, 0xFE, 0x5B, 0x00, 0x22, 0x00, 0xE9, 0x00, 0x22, 0x00, 0x5D, 0x00], false),
        ("i_structure_UTF-8_BOM_empty_object", [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], false),  // RFC 8259 §8.1: no BOM
        ("i_structure_500_nested_arrays", Array((String(repeating: "[", count: 500) + String(repeating: "]", count: 500)).utf8), false),
        ("i_number_huge_exp", Array("[0.4e00669999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999969999999006]".utf8), false),
        ("i_number_double_huge_neg_exp", Array("[123.456e-789]".utf8), true),  // underflows to 0
        ("i_number_too_big_neg_int", Array("[-123123123123123123123123123123]".utf8), true),  // a Double
    ]

    @Test(arguments: accepted.map(\.0))
    func acceptsWhatJSONAllows(_ name: String) throws {
        let bytes = try #require(Self.accepted.first { $0.0 == name }?.1)
        #expect(throws: Never.self, "\(name)") { _ = try JSONParser.parse(bytes) }
    }

    @Test(arguments: refused.map(\.0))
    func refusesWhatJSONDoesNotAllow(_ name: String) throws {
        let bytes = try #require(Self.refused.first { $0.0 == name }?.1)
        #expect(throws: JSONSyntaxError.self, "\(name)") { _ = try JSONParser.parse(bytes) }
    }

    @Test(arguments: decided.map(\.0))
    func decidesTheImplementationDefinedCasesAsDocumented(_ name: String) throws {
        let (_, bytes, accepted) = try #require(Self.decided.first { $0.0 == name })
        let result = Result { try JSONParser.parse(bytes) }
        if accepted {
            #expect(throws: Never.self, "\(name)") { _ = try result.get() }
        } else {
            #expect(throws: JSONSyntaxError.self, "\(name)") { _ = try result.get() }
        }
    }

    @Test func duplicateKeysAreReportedWithTheirPath() throws {
        let parsed = try JSONParser.parse(Array("{\"a\":\"b\",\"a\":\"c\"}".utf8))
        #expect(parsed.duplicateKeyPaths == ["/a"])
    }
}
