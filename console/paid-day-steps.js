// The paid day's steps, in order: docs/monetization.md's "Runbook: the paid day" as data, so the guided view
// follows the runbook by editing this list (no view code). Each step is one of
//   {kind: "manual", ...}: done outside the console (App Store Connect, watching); shown with its instructions;
//   {kind: "flag", flag, ...} with
//     value: V        a bare value, as `flagctl set ENV FLAG V` and PUT .../flags/{key} with V: this value for
//                     everyone (the flag's rules are dropped, type, description, requires and salt kept); or
//     set: {...}      members replaced in the flag's current definition (rules and requires kept), and/or
//     addRules: [...] the flag's rules become these, in this order (one already there is moved, never repeated),
//                     followed by the flag's other rules. A cohort these rules name that the document lacks
//                     blocks the step until an earlier step adds it;
//   {kind: "cohorts", cohorts: {name: definition}, input?}: these cohorts added to the document, or replaced
//     (published as the whole document with If-Match). With `input: {name, type: "instant", label}` the person
//     chooses a point in time in the browser's time zone (required, no default) and every string "{name}" in the
//     definitions becomes that UTC instant (RFC 3339, e.g. 2027-03-01T00:00:00Z);
// and `message`: the change message the runbook gives (the person may edit it; a blank one is refused); a flag step
// may carry `guards`: rules (docs/guards.md) added to the change it makes (POST .../guards with the change request's id,
// or the version when it was published at once), exactly flags/paid-day/<N>-<step>.guard.json's (a browser test
// compares them).
// Titles, texts and labels are [English, German]. Whether a step needs a second person comes from the
// environment's policy (protected flags), never from this list.
export const paidDaySteps = [
  {
    id: "app-store",
    kind: "manual",
    title: ["App Store Connect, days before: billing grace period, prices, introductory offer", "App Store Connect, Tage vorher: Nachfrist bei Zahlungsproblemen, Preise, Einführungsangebot"],
    text: [
      "Subscriptions > Billing Grace Period: on, for all renewals, 16 days (in the sandbox first: try a failed renewal with a sandbox account, then production). Set the prices of symi_plus_monthly and symi_plus_yearly (never in a flag); end or change the free introductory offer when the free period should end; create offer codes if support needs them. Mirror it in storekit/Symi.storekit and run flagctl storekit check: once the free offer is gone it lists every copy string that still promises “kostenlos”/“free”; change that copy in flags/. Offer the yearly product when it is live (subscriptionProductIds).",
      "Abonnements > Nachfrist bei Abrechnungsproblemen (Billing Grace Period): an, für alle Verlängerungen, 16 Tage (zuerst in der Sandbox: eine fehlgeschlagene Verlängerung mit einem Sandbox-Konto ausprobieren, dann Produktion). Preise von symi_plus_monthly und symi_plus_yearly setzen (nie in einem Flag); das kostenlose Einführungsangebot beenden oder ändern, wenn die Gratiszeit enden soll; Angebotscodes anlegen, wenn der Support sie braucht. In storekit/Symi.storekit nachziehen und flagctl storekit check ausführen: ist das Gratisangebot weg, listet es jeden Text, der noch „kostenlos“/„free“ verspricht; diesen Text in flags/ ändern. Das Jahresprodukt anbieten, sobald es live ist (subscriptionProductIds).",
    ],
  },
  {
    id: "free-period-over",
    kind: "flag",
    flag: "showIntroFreeSubscriptionBanner",
    value: false,
    message: "free introductory period is over",
    title: ["The free period is over: hide the start-screen card", "Die Gratiszeit ist vorbei: Karte auf dem Startbildschirm ausblenden"],
    text: ["No install sees the “free for a short time” card any more.", "Keine Installation sieht mehr die Karte „für kurze Zeit kostenlos“."],
  },
  {
    id: "announce",
    kind: "flag",
    flag: "subscriptionPriceIncreaseMessagingEnabled",
    value: true,
    message: "announce the price change",
    title: ["Announce the price change", "Preisänderung ankündigen"],
    text: [
      "Shows subscriptionPaidCopy.priceChangeNotice to subscribers whose planned price increase awaits their consent (docs/monetization.md, “Runbook: a price increase”); everyone else sees nothing extra. Apple's rules for telling existing subscribers apply on top.",
      "Zeigt subscriptionPaidCopy.priceChangeNotice Abonnenten, deren geplante Preiserhöhung auf ihre Zustimmung wartet (docs/monetization.md, „Runbook: a price increase“); alle anderen sehen nichts zusätzlich. Apples Regeln zur Information bestehender Abonnenten gelten zusätzlich.",
    ],
  },
  {
    id: "early-users",
    kind: "cohorts",
    input: {
      name: "switch",
      type: "instant",
      label: ["The switch: installs first downloaded before it stay open (your time zone: {zone})", "Der Umstieg: vorher zuerst geladene Installationen bleiben offen (deine Zeitzone: {zone})"],
    },
    cohorts: {
      earlyUsers: { firstInstallDate: { before: "{switch}" } },
      installedSinceSwitch: { firstInstallDate: { after: "{switch}" } },
    },
    message: "early-user cohorts: installs first downloaded before the switch stay open",
    title: ["The early-user cohorts, before the lock", "Die Kohorten der frühen Nutzer, vor der Sperre"],
    text: [
      "Installs first downloaded before the switch stay open. Adds the cohorts earlyUsers (firstInstallDate before the switch) and installedSinceSwitch (after it); both are strict, so an install at exactly that millisecond is in neither and stays open. An install whose date is unknown is in neither cohort. The preview should show that nobody's value changes yet.",
      "Vor dem Umstieg zuerst geladene Installationen bleiben offen. Fügt die Kohorten earlyUsers (firstInstallDate vor dem Umstieg) und installedSinceSwitch (danach) hinzu; beide sind strikt, eine Installation genau in dieser Millisekunde ist in keiner und bleibt offen. Eine Installation mit unbekanntem Datum ist in keiner der beiden. Die Vorschau sollte zeigen, dass sich noch für niemanden ein Wert ändert.",
    ],
  },
  {
    id: "lock",
    kind: "flag",
    flag: "premiumFeaturesLocked",
    set: { default: false },
    addRules: [
      { cohort: "internal", value: true },
      { cohort: "earlyUsers", value: false },
      { cohort: "installedSinceSwitch", value: true },
    ],
    message: "Symi Plus: premium features need a subscription",
    // flags/paid-day/4-lock.guard.json: refunds and auto-renew off per hour against the week before, rolled back
    // (docs/monetization.md, "The lock's guard").
    guards: [
      { metric: "refunds", measure: "perHour", baseline: "previousWeek", minimumCount: 5, windowHours: 72, action: "rollback",
        alpha: 0.01, minimumRelativeChange: 0.5, appStoreEnvironment: "Production" },
      { metric: "autoRenewOff", measure: "perHour", baseline: "previousWeek", minimumCount: 5, windowHours: 72, action: "rollback",
        alpha: 0.01, minimumRelativeChange: 0.5, appStoreEnvironment: "Production" },
    ],
    title: ["Lock the premium features", "Premium-Funktionen sperren"],
    text: [
      "premiumFeaturesLocked stays false by default; internal testers are locked, early users stay open, installs known to be first downloaded since the switch are locked. An install whose date is unknown is never locked. The requirement monetizationEnabled = true is kept.",
      "premiumFeaturesLocked bleibt standardmäßig false; interne Tester sind gesperrt, frühe Nutzer bleiben offen, Installationen, die nachweislich seit dem Umstieg zuerst geladen wurden, sind gesperrt. Eine Installation mit unbekanntem Datum wird nie gesperrt. Die Voraussetzung monetizationEnabled = true bleibt.",
    ],
  },
  {
    id: "watch",
    kind: "manual",
    title: ["Watch", "Beobachten"],
    text: [
      "The billing notice and “Manage subscription” appear by themselves for failed renewals; StoreKit's own billing message waits while a journal entry is written.",
      "Der Hinweis zur Zahlung und „Abo verwalten“ erscheinen bei fehlgeschlagenen Verlängerungen von selbst; StoreKits eigene Zahlungsmeldung wartet, solange ein Tagebucheintrag geschrieben wird.",
    ],
  },
  {
    id: "roll-back",
    kind: "manual",
    title: ["If anything goes wrong: roll back", "Falls etwas schiefgeht: zurücksetzen"],
    text: [
      "In History, roll back to the version before the lock (published as a new, higher version, so every client takes it at its next refresh). Turning monetizationEnabled off also unlocks everything. Prices are rolled back in App Store Connect, not in flags.",
      "Im Verlauf auf die Version vor der Sperre zurücksetzen (als neue, höhere Version veröffentlicht, jeder Client übernimmt sie beim nächsten Abruf). monetizationEnabled auszuschalten entsperrt ebenfalls alles. Preise werden in App Store Connect zurückgesetzt, nicht in Flags.",
    ],
  },
];
