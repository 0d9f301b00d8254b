#if canImport(SwiftUI)
import FlagClient
import SwiftUI
import SymiSchema

// Not compiled on Linux (no SwiftUI there). In the Symi app this is the `@main` App; here it is a plain type so the
// package's example executable keeps its `main.swift`.

/// The app's root: creates the flags once, refreshes at launch and on every return to the foreground.
struct SymiAppExampleApp: App {
    @Environment(\.scenePhase) private var scenePhase
    @State private var model: FlagModel

    init() {
        let directory = (try? AppFlags.flagDirectory()) ?? FileManager.default.temporaryDirectory
        let flags = AppFlags(baseURL: URL(string: "https://flags.symi.app") ?? URL(fileURLWithPath: "/"),
                             directory: directory,
                             app: AppContext(appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
                                             platform: "ios", locale: Locale.current.identifier, channel: "appstore"))
        _model = State(initialValue: FlagModel(flags: flags))
    }

    var body: some Scene {
        WindowGroup {
            StartScreen(model: model)
        }
        .onChange(of: scenePhase) { phase in
            if phase == .active { Task { await model.flags.refresh() } }
        }
    }
}

/// The values the views read, swapped whole when a new document arrives: Symi's typed values, built once per
/// snapshot.
@MainActor final class FlagModel: ObservableObject {
    let flags: AppFlags
    @Published private(set) var values: SymiFlagValues

    init(flags: AppFlags) {
        self.flags = flags
        values = SymiFlagValues(flags.client.snapshot)
        Task { [weak self] in
            for await snapshot in flags.client.updates() { self?.values = SymiFlagValues(snapshot) }
        }
    }
}

/// A calm start screen: the intro card only while the flags say so, never a modal paywall.
struct StartScreen: View {
    @ObservedObject var model: FlagModel

    var body: some View {
        VStack(alignment: .leading, spacing: 16) {
            if model.values.showIntroFreeSubscriptionBanner {
                Text(model.values.introOfferMessage)
                    .padding()
                    .background(Color(red: 0x8E / 255, green: 0xCD / 255, blue: 0xB8 / 255).opacity(0.25))
                    .clipShape(RoundedRectangle(cornerRadius: 12))
            }
            Spacer()
        }
        .padding()
        .background(Color(red: 0xF6 / 255, green: 0xF4 / 255, blue: 0xEF / 255))
    }
}
#endif
