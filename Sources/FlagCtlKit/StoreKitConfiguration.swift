import FlagKit

/// The parts of an Xcode StoreKit configuration file (`.storekit`, the JSON Xcode writes) that
/// `flagctl storekit check` compares with the flags: subscription groups, their subscriptions, offers and
/// localizations, each with its JSON pointer for findings. Parsed with FlagKit's strict parser; members this check
/// does not need (settings, prices, internal ids) are ignored.
public struct StoreKitConfiguration: Sendable, Equatable {
    /// A `locale` with its `displayName` and `description`.
    public struct Localization: Sendable, Equatable {
        /// `de`, `de_DE`, `en_US`, ...
        public var locale: String
        /// The localized name.
        public var displayName: String
        /// The localized description.
        public var description: String
    }

    /// One auto-renewable subscription of a group.
    public struct Subscription: Sendable, Equatable {
        /// `productID`.
        public var productId: String
        /// `recurringSubscriptionPeriod` (`P1M`), if present.
        public var recurringPeriod: String?
        /// The `introductoryOffer`'s `paymentMode` (`free`, `payAsYouGo`, `payUpFront`); `nil` without an offer.
        public var introductoryPaymentMode: String?
        /// `localizations`.
        public var localizations: [Localization]
        /// Its pointer, `/subscriptionGroups/0/subscriptions/1`.
        public var path: String
        /// `groupNumber`: its level in the group (equal levels crossgrade at the next renewal).
        public var groupNumber: Int64? = nil
        /// How many offer codes it has (`codeOffers`), for trying "Code einlösen" in Xcode.
        public var codeOfferCount: Int = 0
        /// `displayPrice` (`"4.99"`), in the currency of the file's storefront; nil when absent.
        public var displayPrice: String? = nil
        /// The `offerID`s of its promotional offers (`adHocOffers`).
        public var promotionalOfferIds: [String] = []

        /// Whether its introductory offer is free.
        public var hasFreeIntroductoryOffer: Bool { introductoryPaymentMode == "free" }
    }

    /// A subscription group.
    public struct Group: Sendable, Equatable {
        /// `id`.
        public var id: String
        /// `name`, the reference name ("Symi Plus").
        public var name: String
        /// `localizations`.
        public var localizations: [Localization]
        /// `subscriptions`.
        public var subscriptions: [Subscription]
        /// Its pointer, `/subscriptionGroups/0`.
        public var path: String
    }

    /// Why a file is not a StoreKit configuration at all (`flagctl` exits 2).
    public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Where, as a JSON pointer (empty for the whole file).
        public let path: String
        /// What is wrong.
        public let message: String

        /// `/subscriptionGroups: must be an array`.
        public var description: String { "\(path.isEmpty ? "/" : path): \(message)" }
    }

    /// The subscription groups, in file order.
    public var groups: [Group]
    /// `settings._billingGracePeriodEnabled`: whether Xcode's test store gives a billing grace period (`nil`: not set).
    public var billingGracePeriodEnabled: Bool? = nil
    /// `settings._storefront` (`DEU`): the storefront whose currency the display prices are in (`nil`: not set).
    public var storefront: String? = nil

    /// Every subscription of every group.
    public var subscriptions: [Subscription] { groups.flatMap(\.subscriptions) }

    /// The subscription with this product id, and its group.
    public func subscription(_ productId: String) -> (Subscription, Group)? {
        for group in groups {
            if let subscription = group.subscriptions.first(where: { $0.productId == productId }) { return (subscription, group) }
        }
        return nil
    }

    /// The StoreKit configuration file at `path`, or nil after telling `context` why it cannot be read or is not one
    /// (the commands then exit with `ExitStatus.trouble`).
    static func load(_ path: String, _ context: RunContext) -> StoreKitConfiguration? {
        do {
            return try parse(try FileReader.read(path))
        } catch let error as FileReadError {
            context.error(error.description)
        } catch {
            context.error("\(path) is not a StoreKit configuration file: \(error)")
        }
        return nil
    }

    /// Parses a `.storekit` file: well-formed JSON, an object, `subscriptionGroups` an array of objects with
    /// `subscriptions` arrays. A missing or mistyped text member (a localization without `displayName`) reads as
    /// empty, which the check then reports, rather than refusing the file.
    public static func parse(_ bytes: [UInt8]) throws(FormatError) -> StoreKitConfiguration {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes).value
        } catch {
            throw FormatError(path: "", message: "not JSON: \(error)")
        }
        guard let object = root.objectValue else { throw FormatError(path: "", message: "must be an object (got \(root.typeName))") }
        guard let groupValues = object["subscriptionGroups"]?.arrayValue else {
            throw FormatError(path: "/subscriptionGroups", message: "must be an array: this is not a StoreKit configuration file")
        }
        var groups: [Group] = []
        for (index, value) in groupValues.enumerated() {
            let path = "/subscriptionGroups/\(index)"
            guard let group = value.objectValue else { throw FormatError(path: path, message: "must be an object (got \(value.typeName))") }
            guard let subscriptionValues = (group["subscriptions"] ?? .array([])).arrayValue else {
                throw FormatError(path: path + "/subscriptions", message: "must be an array")
            }
            var subscriptions: [Subscription] = []
            for (position, element) in subscriptionValues.enumerated() {
                let subscriptionPath = "\(path)/subscriptions/\(position)"
                guard let subscription = element.objectValue else {
                    throw FormatError(path: subscriptionPath, message: "must be an object (got \(element.typeName))")
                }
                subscriptions.append(Subscription(
                    productId: subscription["productID"]?.stringValue ?? "",
                    recurringPeriod: subscription["recurringSubscriptionPeriod"]?.stringValue,
                    introductoryPaymentMode: subscription["introductoryOffer"]?.objectValue?["paymentMode"]?.stringValue,
                    localizations: localizations(subscription["localizations"]), path: subscriptionPath,
                    groupNumber: subscription["groupNumber"]?.integerValue,
                    codeOfferCount: subscription["codeOffers"]?.arrayValue?.count ?? 0,
                    displayPrice: subscription["displayPrice"]?.stringValue,
                    promotionalOfferIds: (subscription["adHocOffers"]?.arrayValue ?? []).compactMap { $0.objectValue?["offerID"]?.stringValue }))
            }
            groups.append(Group(id: group["id"]?.stringValue ?? "", name: group["name"]?.stringValue ?? "",
                                localizations: localizations(group["localizations"]), subscriptions: subscriptions, path: path))
        }
        let settings = object["settings"]?.objectValue
        return StoreKitConfiguration(groups: groups, billingGracePeriodEnabled: settings?["_billingGracePeriodEnabled"]?.boolValue,
                                     storefront: settings?["_storefront"]?.stringValue)
    }

    private static func localizations(_ value: JSONValue?) -> [Localization] {
        (value?.arrayValue ?? []).compactMap { element in
            guard let object = element.objectValue else { return nil }
            return Localization(locale: object["locale"]?.stringValue ?? "", displayName: object["displayName"]?.stringValue ?? "",
                                description: object["description"]?.stringValue ?? "")
        }
    }
}
