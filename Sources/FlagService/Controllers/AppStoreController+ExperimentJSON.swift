import AppStoreNotifications
import FlagKit
import HTTPServer
import OutcomeAnalysis

/// The experiment routes' parameters and answer (docs/api.md, "Experiments").
extension AppStoreController {
    /// `alpha`: the experiment's level, in (0, 0.5); `ExperimentAnalysis.defaultAlpha` when absent.
    static func alphaParameter(_ request: HTTPRequest) throws(ServiceError) -> Double {
        guard let text = request.queryParameter("alpha") else { return ExperimentAnalysis.defaultAlpha }
        guard let alpha = Double(text), alpha > 0, alpha < 0.5 else {
            throw invalidParameter("alpha", "alpha must be a number in (0, 0.5), got '\(text)'")
        }
        return alpha
    }

    /// Every `price=PRODUCT:AMOUNT:CUR`, by product (one per product).
    static func priceParameters(_ request: HTTPRequest) throws(ServiceError) -> [String: ExperimentPrice] {
        var prices: [String: ExperimentPrice] = [:]
        for item in request.queryItems where item.name == "price" {
            guard let (product, price) = ExperimentPrice.parse(parameter: item.value) else {
                throw invalidParameter("price", "price must be PRODUCT:AMOUNT:CUR (symi_plus_monthly_499:4.99:EUR), got '\(item.value)'")
            }
            guard prices.updateValue(price, forKey: product) == nil else {
                throw invalidParameter("price", "price is given twice for \(product)")
            }
        }
        return prices
    }

    /// The report as the API shows it: amounts in the currency's units (4.99), an infinite bound as `null`, each
    /// comparison's verdict naming the arm that starts more per share.
    static func json(_ report: ExperimentReport, sources: [JSONValue]) -> [String: JSONValue] {
        func amount(_ milliunits: Int64?) -> JSONValue { milliunits.map { .number(Double($0) / 1000) } ?? .null }
        func finite(_ value: Double) -> JSONValue { value.isFinite ? .number(value) : .null }
        let arms: [JSONValue] = report.arms.enumerated().map { index, result in
            .object([
                "product": .string(result.arm.product), "offer": result.arm.offer.map(JSONValue.string) ?? .null,
                "name": .string(result.arm.name), "share": .number(result.arm.share),
                "listPrice": amount(result.arm.listPrice), "currency": result.arm.currency.map(JSONValue.string) ?? .null,
                "listPriceSource": index < sources.count ? sources[index] : .null,
                "started": .integer(Int64(result.started)), "introStarts": .integer(Int64(result.introStarts)),
                "freeTrialStarts": .integer(Int64(result.freeTrialStarts)),
                "introConversions": .integer(Int64(result.introConversions)), "renewals": .integer(Int64(result.renewals)),
                "refunds": .integer(Int64(result.refunds)), "paidPeriods": .integer(Int64(result.paidPeriods)),
                "revenueAtListPrice": amount(result.revenueAtListPrice),
                "dailyStarted": .array(result.dailyStarted.map { .integer(Int64($0)) }),
            ])
        }
        let comparisons: [JSONValue] = report.comparisons.map { comparison in
            let result = comparison.result
            let winner = result.rateRatio > 1 ? comparison.first : comparison.second
            let verdict = result.decided ? "\(report.arms[winner].arm.name) starts more per share" : "not decided yet"
            return .object([
                "first": .integer(Int64(comparison.first)), "second": .integer(Int64(comparison.second)),
                "ratio": finite(result.rateRatio), "lower": finite(result.interval.lowerBound), "upper": finite(result.interval.upperBound),
                "pValue": .number(result.pValue), "decided": .bool(result.decided), "verdict": .string(verdict),
            ])
        }
        let checks: [JSONValue] = report.sampleRatioChecks.map { check in
            .object(["arms": .array(check.arms.map { .integer(Int64($0)) }), "pValue": .number(check.pValue),
                     "alpha": .number(check.alpha), "mismatch": .bool(check.mismatch)])
        }
        return ["alpha": .number(report.alpha), "arms": .array(arms), "comparisons": .array(comparisons),
                "sampleRatioChecks": .array(checks), "notKnown": .array(experimentNotKnown.map(JSONValue.string))]
    }
}
