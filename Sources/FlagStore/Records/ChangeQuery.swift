/// Which changes of one environment `FlagStore.changes(query:)` lists.
///
/// `GET .../schedules` is `.schedules(environment:)` (the changes with an `applyAt`, by `applyAt`);
/// `GET .../requests` is `.requests(environment:)` (the changes that needed approval, newest first).
public struct ChangeQuery: Sendable, Equatable {
    /// The environment.
    public var environment: String
    /// Only these statuses (`?status=`); nil: all.
    public var statuses: Set<ChangeStatus>?
    /// Only changes with an `applyAt` (schedules).
    public var withApplyAtOnly: Bool
    /// Only changes that needed approval (change requests).
    public var requestsOnly: Bool
    /// How the list is ordered.
    public var order: Order
    /// At most this many, 1...1000.
    public var limit: Int
    /// Only changes with an id below this (paging `newestFirst`; the last id of the previous page).
    public var before: Int64?

    /// The order of a listing.
    public enum Order: Sendable, Equatable {
        /// Earliest `applyAt` first, then by id (schedules: what runs next on top).
        case applyAt
        /// Highest id first (requests, history).
        case newestFirst
    }

    /// The allowed page sizes.
    public static let limitRange = 1...1000

    /// A query; see each property.
    public init(environment: String, statuses: Set<ChangeStatus>? = nil, withApplyAtOnly: Bool = false,
                requestsOnly: Bool = false, order: Order = .newestFirst, limit: Int = 100, before: Int64? = nil) {
        self.environment = environment
        self.statuses = statuses
        self.withApplyAtOnly = withApplyAtOnly
        self.requestsOnly = requestsOnly
        self.order = order
        self.limit = limit
        self.before = before
    }

    /// `GET /v1/environments/{env}/schedules[?status=]`: changes with an `applyAt`, by `applyAt`.
    public static func schedules(environment: String, statuses: Set<ChangeStatus>? = nil, limit: Int = 100) -> ChangeQuery {
        ChangeQuery(environment: environment, statuses: statuses, withApplyAtOnly: true, order: .applyAt, limit: limit)
    }

    /// `GET /v1/environments/{env}/requests[?status=]`: change requests, newest first.
    public static func requests(environment: String, statuses: Set<ChangeStatus>? = nil, limit: Int = 100,
                                before: Int64? = nil) -> ChangeQuery {
        ChangeQuery(environment: environment, statuses: statuses, requestsOnly: true, order: .newestFirst, limit: limit,
                    before: before)
    }
}
