import FlagKit
import FlagServiceTestSupport
import Foundation
import Testing
@testable import FlagService

/// The body of `POST .../schedules`: every refusal names the member's path.
@Suite struct ScheduleRequestTests {
    /// 2027-02-20T09:00:00Z.
    static let now: Int64 = 1_803_114_000_000

    static func parse(_ text: String) throws(ServiceError) -> ScheduleRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(text.utf8)).value
        } catch {
            throw ServiceError.badRequest("test", "not JSON")
        }
        return try ScheduleRequest(body: value, now: now)
    }

    static func refusal(_ text: String) -> (status: Int, code: String, path: String?)? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return (error.status.code, error.code, error.details.first?.path)
        }
    }

    @Test func readsTheBriefsExample() throws {
        let request = try Self.parse(#"{"at": "2027-03-01T00:00:00+01:00", "message": "the free intro period is over", "flags": {"showIntroFreeSubscriptionBanner": false}}"#)
        #expect(RFC3339.string(milliseconds: request.applyAt) == "2027-02-28T23:00:00.000Z")
        #expect(request.edit == .flags(["showIntroFreeSubscriptionBanner": .value(false)]))
        #expect(request.message == "the free intro period is over")
        let definition = try Self.parse(#"{"at": "2027-03-01T00:00:00Z", "flags": {"x": {"type": "boolean", "default": true}}}"#)
        #expect(definition.edit == .flags(["x": .definition(["type": "boolean", "default": true])]))
        #expect(definition.message == nil, "the header may carry it")
        let document = try Self.parse(#"{"at": "2027-03-01T00:00:00Z", "document": {"flags": {"a": {"type": "integer", "default": 1}}}}"#)
        guard case .document(let scheduled) = document.edit else { Issue.record("not a document"); return }
        #expect(scheduled.flags["a"]?.defaultValue == 1)
    }

    @Test(arguments: [
        (#"[]"#, 400, "invalid_body", String?.none),
        (#"{"flags": {"a": true}}"#, 422, "invalid_body", "/at"),
        (#"{"at": "2027-03-01T00:00:00", "flags": {"a": true}}"#, 422, "invalid_body", "/at"),
        (#"{"at": "2027-02-20T08:58:00Z", "flags": {"a": true}}"#, 422, "invalid_body", "/at"),
        (#"{"at": "2029-03-01T00:00:00Z", "flags": {"a": true}}"#, 422, "invalid_body", "/at"),
        (#"{"at": "2027-03-01T00:00:00Z"}"#, 422, "invalid_body", "/"),
        (#"{"at": "2027-03-01T00:00:00Z", "flags": {}}"#, 422, "invalid_body", "/flags"),
        (#"{"at": "2027-03-01T00:00:00Z", "flags": {"a": 1}, "document": {"flags": {}}}"#, 422, "invalid_body", "/"),
        (#"{"at": "2027-03-01T00:00:00Z", "flags": {"a": 1}, "extra": 1}"#, 422, "invalid_body", "/extra"),
        (#"{"at": "2027-03-01T00:00:00Z", "flags": {"a": 1}, "message": 5}"#, 422, "invalid_body", "/message"),
        (#"{"at": "2027-03-01T00:00:00Z", "document": {"flags": {"a": {"type": "boolean", "default": 1}}}}"#, 422, "invalid_document",
         "/document/flags/a/default"),
    ])
    func refusesWithThePath(body: String, status: Int, code: String, path: String?) {
        let refusal = Self.refusal(body)
        #expect(refusal?.status == status, "\(body)")
        #expect(refusal?.code == code, "\(body)")
        #expect(refusal?.path == path, "\(body)")
    }

    @Test func aMinuteLateIsStillOnTime() throws {
        #expect(try Self.parse(#"{"at": "2027-02-20T08:59:30Z", "flags": {"a": true}}"#).applyAt == Self.now - 30_000)
        #expect(try Self.parse(#"{"at": "2029-02-19T09:00:00Z", "flags": {"a": true}}"#).applyAt < Self.now + ScheduleRequest.horizon)
    }
}
